"""What the GStreamer webrtcbin test peers share (whep-gstreamer-client.py, a WHEP player; whip-gstreamer-server.py, a
WHIP server): webrtcbin with libnice given 127.0.0.1, the receive chain (depayloader, parser, decoder, GRAY8 appsink)
for one codec, and the decoded picture as clock_barcode's FrameTally reads it.

Debian gstreamer1.0-plugins-bad 1.22 with gstreamer1.0-nice for ICE, gir1.2-gst-plugins-bad-1.0, gir1.2-nice-0.1 and
python3-gi (scripts/deps.sh)."""
import re

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstSdp", "1.0")
gi.require_version("GstWebRTC", "1.0")
gi.require_version("GstVideo", "1.0")
gi.require_version("Nice", "0.1")
from gi.repository import Gst, GstVideo, GstWebRTC, Nice  # noqa: E402

ELEMENTS = {
    "h265": ("H265", "rtph265depay", "h265parse", "avdec_h265"),
    "h264": ("H264", "rtph264depay", "h264parse", "avdec_h264"),
}

keep = {}  # objects whose Python wrappers must outlive the pipeline


class Picture:
    """A decoded GRAY8 sample as clock_barcode's FrameTally reads it (width, height, to_ndarray)."""

    def __init__(self, sample):
        import numpy
        info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
        self.width, self.height = info.width, info.height
        stride = info.stride[0]
        buffer = sample.get_buffer()
        ok, mapped = buffer.map(Gst.MapFlags.READ)
        try:
            rows = numpy.frombuffer(mapped.data, dtype=numpy.uint8, count=stride * self.height).reshape(self.height, stride)
            self.luma = rows[:, : self.width].copy()
        finally:
            buffer.unmap(mapped)

    def to_ndarray(self, format="gray"):
        return self.luma


def fmtp_of(sdp, encoding):
    """The a=fmtp value of the first payload type whose rtpmap names `encoding`."""
    match = re.search(r"a=rtpmap:(\d+) " + encoding + r"/90000", sdp, re.IGNORECASE)
    if not match:
        return None
    fmtp = re.search(r"a=fmtp:" + match.group(1) + r" ([^\r\n]*)", sdp)
    return fmtp.group(1) if fmtp else ""


def make_webrtcbin(pipeline, errors):
    """A max-bundle webrtcbin in `pipeline` whose libnice agent gathers on 127.0.0.1, or None (the reason in errors).

    libnice leaves loopback interfaces out when it gathers by itself, and the tests run in a namespace with only lo:
    the agent is given 127.0.0.1 as its one local address (NiceAgent add_local_address, through webrtcbin's
    ice-agent)."""
    webrtc = Gst.ElementFactory.make("webrtcbin", "webrtc")
    if webrtc is None:
        errors.append("no webrtcbin (gstreamer1.0-plugins-bad) or no ICE (gstreamer1.0-nice)")
        return None
    webrtc.set_property("bundle-policy", GstWebRTC.WebRTCBundlePolicy.MAX_BUNDLE)
    pipeline.add(webrtc)
    # webrtcbin 1.22 keeps its GstWebRTCNice floating: the Python wrapper sinks that reference, so the wrapper must
    # live as long as the pipeline (its release would free the ICE object under webrtcbin's feet).
    keep["ice"] = webrtc.get_property("ice-agent")
    agent = keep["ice"].get_property("agent")  # the NiceAgent inside GstWebRTCNice
    address = Nice.Address.new()
    address.set_from_string("127.0.0.1")
    if not agent.add_local_address(address):
        errors.append("libnice refused 127.0.0.1 as a local address")
    return webrtc


def decode_received(pipeline, pad, codec, on_picture):
    """Links a webrtcbin source pad to depayloader ! parser ! decoder ! videoconvert ! GRAY8 appsink for `codec`;
    `on_picture(Picture)` runs for every decoded picture (on a streaming thread). Returns the decoder's name."""
    _, depay, parse, decode = ELEMENTS[codec]
    chain = [Gst.ElementFactory.make(name) for name in (depay, parse, decode, "videoconvert")]
    caps = Gst.ElementFactory.make("capsfilter")
    caps.set_property("caps", Gst.Caps.from_string("video/x-raw,format=GRAY8"))
    sink = Gst.ElementFactory.make("appsink")
    sink.set_property("emit-signals", True)
    sink.set_property("sync", False)

    def on_sample(element):
        sample = element.emit("pull-sample")
        if sample is not None:
            on_picture(Picture(sample))
        return Gst.FlowReturn.OK

    sink.connect("new-sample", on_sample)
    chain += [caps, sink]
    for element in chain:
        pipeline.add(element)
        element.sync_state_with_parent()
    for a, b in zip(chain, chain[1:]):
        a.link(b)
    pad.link(chain[0].get_static_pad("sink"))
    return decode
