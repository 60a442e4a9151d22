#!/usr/bin/python3
"""A WHEP player on GStreamer's webrtcbin (Debian gstreamer1.0-plugins-bad 1.22 with gstreamer1.0-nice for ICE,
gir1.2-gst-plugins-bad-1.0 and python3-gi for this script): a recvonly transceiver for one codec, its offer POSTed to
`rtenc serve`, the answer set, the received RTP depayloaded and decoded (rtph265depay ! h265parse ! avdec_h265, or
the H.264 elements) for SECONDS, and the clock barcode read from every decoded picture (clock_barcode.py).

    whep-gstreamer-client.py URL [SECONDS] [--codec h265|h264] [--level-id N] [--delete]

Prints one JSON object: status, location, codec, offered_fmtp, answered_fmtp (the answer's a=fmtp for the payload
type it chose), frames, first_frame_ms (from the POST), size, codes_read, monotonic, latency_ms (median/p90 of own
clock - code), decoder (the decoding element), errors (GStreamer error messages); exit 0 when it decoded a frame.

ICE: libnice leaves loopback interfaces out when it gathers by itself, and this runs in a namespace with only lo
(rtenc's candidate is 127.0.0.1). So the agent is given 127.0.0.1 as its one local address (NiceAgent
add_local_address, through webrtcbin's ice-agent); rtenc is ICE-lite and needs nothing else: webrtcbin (controlling,
the offerer) checks rtenc's candidate from the answer and nominates it.
"""
import json, sys, threading, time, urllib.parse

from clock_barcode import FrameTally  # beside this script
from whep_http import http  # beside this script
from gst_webrtc import ELEMENTS, decode_received, fmtp_of, make_webrtcbin  # beside this script (gi versions pinned there)
from gi.repository import GLib, Gst, GstSdp, GstWebRTC  # noqa: E402


def main(url, seconds, codec, level_id, delete):
    encoding = ELEMENTS[codec][0]
    result = {"codec": encoding, "status": None, "errors": []}
    Gst.init(None)
    loop = GLib.MainLoop()
    pipeline = Gst.Pipeline.new("whep")
    webrtc = make_webrtcbin(pipeline, result["errors"])
    if webrtc is None:
        return result

    fields = "application/x-rtp,media=video,clock-rate=90000,payload=96,encoding-name=" + encoding
    fields += ",rtcp-fb-nack-pli=(boolean)true,rtcp-fb-ccm-fir=(boolean)true"
    if codec == "h265":
        fields += ",profile-id=(string)1,tier-flag=(string)0,level-id=(string)%d,tx-mode=(string)SRST" % level_id
    else:
        fields += ",packetization-mode=(string)1,profile-level-id=(string)42e01f,level-asymmetry-allowed=(string)1"
    webrtc.emit("add-transceiver", GstWebRTC.WebRTCRTPTransceiverDirection.RECVONLY, Gst.Caps.from_string(fields))

    tally = FrameTally(result, time.time())
    state = {"posted": None, "location": None}
    lock = threading.Lock()

    def on_picture(picture):
        if state["posted"] is not None:
            with lock:
                tally.add(picture, time.time())

    def on_pad(_, pad):
        if pad.direction == Gst.PadDirection.SRC:
            result["decoder"] = decode_received(pipeline, pad, codec, on_picture)

    def post_offer():
        offer = webrtc.get_property("local-description").sdp.as_text()
        result["offered_fmtp"] = fmtp_of(offer, encoding)
        state["posted"] = time.time()
        tally.start = state["posted"]
        status, answer, location = http("POST", url, offer)
        result["status"], result["location"] = status, location
        state["location"] = location
        if status != 201:
            result["error"] = answer.strip()
            loop.quit()
            return False
        result["answered_fmtp"] = fmtp_of(answer, encoding)
        _, message = GstSdp.SDPMessage.new_from_text(answer)
        description = GstWebRTC.WebRTCSessionDescription.new(GstWebRTC.WebRTCSDPType.ANSWER, message)
        webrtc.emit("set-remote-description", description, Gst.Promise.new())
        GLib.timeout_add(int(seconds * 1000), loop.quit)
        return False

    def on_gathering(*_):
        if webrtc.get_property("ice-gathering-state") == GstWebRTC.WebRTCICEGatheringState.COMPLETE and state["posted"] is None:
            GLib.idle_add(post_offer)

    def on_offer(promise, _):
        reply = promise.get_reply()
        offer = reply.get_value("offer") if reply is not None and reply.has_field("offer") else None
        if offer is None:
            result["errors"].append("create-offer: %s" % (reply.to_string() if reply is not None else "no reply"))
            loop.quit()
            return
        webrtc.emit("set-local-description", offer, Gst.Promise.new())

    def on_message(_, message):
        if message.type == Gst.MessageType.ERROR:
            error, debug = message.parse_error()
            result["errors"].append("%s: %s" % (message.src.get_name(), error.message))
        return True

    webrtc.connect("pad-added", on_pad)
    webrtc.connect("notify::ice-gathering-state", on_gathering)
    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)
    pipeline.set_state(Gst.State.PLAYING)
    webrtc.emit("create-offer", None, Gst.Promise.new_with_change_func(on_offer, None))
    GLib.timeout_add(int((seconds + 5) * 1000), loop.quit)  # the backstop: gathering or the POST never finished
    loop.run()
    with lock:
        tally.finish()
    if delete and state["location"]:
        result["delete_status"] = http("DELETE", urllib.parse.urljoin(url, state["location"]))[0]
    pipeline.set_state(Gst.State.NULL)
    return result


if __name__ == "__main__":
    args = sys.argv[1:]
    codec, level_id = "h265", 93
    if "--codec" in args:
        i = args.index("--codec"); codec = args[i + 1]; del args[i:i + 2]
    if "--level-id" in args:
        i = args.index("--level-id"); level_id = int(args[i + 1]); del args[i:i + 2]
    delete = "--delete" in args
    args = [a for a in args if a != "--delete"]
    if not args or codec not in ELEMENTS:
        sys.exit(__doc__)
    out = main(args[0], float(args[1]) if len(args) > 1 else 10.0, codec, level_id, delete)
    print(json.dumps(out), flush=True)
    sys.exit(0 if out.get("frames", 0) > 0 else 1)
