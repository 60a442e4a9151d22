"""The one HTTP request the WHEP test players make (whep-aiortc-client.py, whep-aiortc-viewers.py,
whep-gstreamer-client.py): the offer POSTed as application/sdp, the resource DELETEd. No gi import, so the aiortc
scripts can use it as well as the GStreamer one (gst_webrtc.py holds what only the GStreamer scripts share)."""
from http.client import HTTPException  # imported by name: `http` is this module's function
import urllib.error
import urllib.request


def http(method, url, body=None, token=None, timeout=5):
    """One request; returns (status, text, Location header). An HTTP error status comes back as such with its body
    (and no Location); refused, reset or timed out after `timeout` seconds, (None, the error, None): the server is
    gone, and the caller still prints its result. `token` goes as a Bearer Authorization header."""
    try:
        request = urllib.request.Request(url, data=body.encode() if body is not None else None, method=method)
    except ValueError as error:  # not a URL (no scheme, no host)
        return None, str(error), None
    if body is not None:
        request.add_header("Content-Type", "application/sdp")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read().decode(errors="replace"), response.headers.get("Location")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace"), None
    except (OSError, HTTPException) as error:  # refused, reset, timed out; a malformed response
        return None, str(error), None
