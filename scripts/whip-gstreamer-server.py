#!/usr/bin/python3
"""A WHIP server on GStreamer's webrtcbin for `rtenc stream --whip` (the one WebRTC peer on this machine that decodes
H.265; Debian gstreamer1.0-plugins-bad 1.22 with gstreamer1.0-nice, gir1.2-gst-plugins-bad-1.0, gir1.2-nice-0.1,
python3-gi): POST /whip with rtenc's offer → webrtcbin (a recvonly transceiver for one codec) answers once its ICE
candidates are gathered → 201 Created, the answer and a relative Location ("whip/session/1"); the received RTP is
depayloaded and decoded (rtph265depay ! h265parse ! avdec_h265, or the H.264 elements) and the clock barcode read
from every picture (clock_barcode.py). DELETE of the resource → 200, and the server writes OUT.json and exits; so it
does after SECONDS.

    whip-gstreamer-server.py PORT SECONDS OUT.json [--codec h265|h264]

OUT.json: posts, status, codec, offered_fmtp (the offer's a=fmtp for the codec), answer (the SDP), answered_fmtp, answer_setup,
offer_has_candidates, frames, first_frame_ms (from the answer's reply), size, codes_read, monotonic, first_code, last_code,
latency_ms, decoder, delete_received, errors (GStreamer's and the HTTP layer's).

ICE: webrtcbin answers and is the controlled agent; rtenc (full ICE, controlling) checks the candidate libnice gathers
on 127.0.0.1 (gst_webrtc.make_webrtcbin), which the answer carries. HTTP: one request per connection, bodies capped
at 64 KiB, on 127.0.0.1 only.
"""
import json, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from clock_barcode import FrameTally  # beside this script
from gst_webrtc import ELEMENTS, decode_received, fmtp_of, make_webrtcbin  # beside this script (gi versions pinned there)
from gi.repository import GLib, Gst, GstSdp, GstWebRTC  # noqa: E402

MAX_BODY = 65536


class Answerer:
    """webrtcbin on the GLib main loop; `answer(offer)` is called from an HTTP thread and waits for the main loop."""

    def __init__(self, codec, result, loop):
        self.codec, self.result, self.loop = codec, result, loop
        self.encoding = ELEMENTS[codec][0]
        self.pipeline = Gst.Pipeline.new("whip")
        self.webrtc = make_webrtcbin(self.pipeline, result["errors"])
        self.lock = threading.Lock()
        self.tally = None
        self.candidates = []
        self.pending = None  # (offer text, event, box for the answer) while a POST waits
        if self.webrtc is None:
            return
        # Only the codec is pinned: profile, tier and level come from the offer and are answered as offered.
        caps = "application/x-rtp,media=video,clock-rate=90000,encoding-name=" + self.encoding
        self.webrtc.emit("add-transceiver", GstWebRTC.WebRTCRTPTransceiverDirection.RECVONLY, Gst.Caps.from_string(caps))
        self.webrtc.connect("pad-added", self.on_pad)
        self.webrtc.connect("on-ice-candidate", self.on_candidate)
        self.webrtc.connect("notify::ice-gathering-state", self.on_gathering)
        bus = self.pipeline.get_bus()
        bus.add_signal_watch()
        bus.connect("message", self.on_message)
        self.pipeline.set_state(Gst.State.PLAYING)

    # MARK: From the HTTP thread

    def answer(self, offer):
        """The answer SDP for `offer`, or raises with the reason (10 s at most)."""
        if self.webrtc is None:
            raise RuntimeError("; ".join(self.result["errors"]))
        done, box = threading.Event(), {}
        GLib.idle_add(self.set_offer, offer, done, box)
        if not done.wait(10):
            raise RuntimeError("webrtcbin gave no answer within 10 s")
        if "error" in box:
            raise RuntimeError(box["error"])
        return box["answer"]

    # MARK: On the main loop

    def set_offer(self, text, done, box):
        self.pending = (done, box)
        self.result["offered_fmtp"] = fmtp_of(text, self.encoding)
        self.result["offer_has_candidates"] = "a=candidate:" in text
        ok, message = GstSdp.SDPMessage.new_from_text(text)
        if ok != GstSdp.SDPResult.OK:
            return self.fail("the offer is not SDP")
        description = GstWebRTC.WebRTCSessionDescription.new(GstWebRTC.WebRTCSDPType.OFFER, message)
        self.webrtc.emit("set-remote-description", description, Gst.Promise.new_with_change_func(self.on_remote_set, None))
        return False

    def on_remote_set(self, promise, _):
        self.webrtc.emit("create-answer", None, Gst.Promise.new_with_change_func(self.on_answer, None))

    def on_answer(self, promise, _):
        reply = promise.get_reply()
        answer = reply.get_value("answer") if reply is not None and reply.has_field("answer") else None
        if answer is None:
            GLib.idle_add(self.fail, "create-answer: %s" % (reply.to_string() if reply is not None else "no reply"))
            return
        self.webrtc.emit("set-local-description", answer, Gst.Promise.new())
        GLib.idle_add(self.maybe_reply)

    def on_candidate(self, _, mline, candidate):
        self.candidates.append(candidate)

    def on_gathering(self, *_):
        GLib.idle_add(self.maybe_reply)

    def maybe_reply(self):
        """Replies to the waiting POST once the local description is set and gathering is complete (no trickle)."""
        description = self.webrtc.get_property("local-description")
        complete = self.webrtc.get_property("ice-gathering-state") == GstWebRTC.WebRTCICEGatheringState.COMPLETE
        if self.pending is None or description is None or not complete:
            return False
        done, box = self.pending
        self.pending = None
        text = description.sdp.as_text()
        if "a=candidate:" not in text:
            # webrtcbin 1.22 keeps gathered candidates out of the description it made: add them to the one section.
            lines = "".join("a=%s\r\n" % c.removeprefix("a=") for c in self.candidates) + "a=end-of-candidates\r\n"
            text = text if text.endswith("\r\n") else text + "\r\n"
            text += lines
        self.result["answered_fmtp"] = fmtp_of(text, self.encoding)
        self.result["answer_setup"] = next((l[len("a=setup:"):] for l in text.split("\r\n") if l.startswith("a=setup:")), None)
        self.result["answer_candidates"] = text.count("a=candidate:")
        with self.lock:
            self.tally = FrameTally(self.result, time.time())
        self.result["answer"] = text
        box["answer"] = text
        done.set()
        return False

    def fail(self, reason):
        self.result["errors"].append(reason)
        if self.pending is not None:
            done, box = self.pending
            self.pending = None
            box["error"] = reason
            done.set()
        return False

    def on_pad(self, _, pad):
        if pad.direction == Gst.PadDirection.SRC:
            self.result["decoder"] = decode_received(self.pipeline, pad, self.codec, self.on_picture)

    def on_picture(self, picture):
        with self.lock:
            if self.tally is not None:
                self.tally.add(picture, time.time())

    def on_message(self, _, message):
        if message.type == Gst.MessageType.ERROR:
            error, _debug = message.parse_error()
            self.result["errors"].append("%s: %s" % (message.src.get_name(), error.message))
        return True


def serve(port, answerer, result, loop):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def reply(self, status, text="", headers=()):
            data = text.encode()
            self.send_response(status)
            for key, value in headers:
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)
            self.close_connection = True

        def do_POST(self):
            if self.path != "/whip":
                return self.reply(404, "nothing at POST %s\n" % self.path)
            length = int(self.headers.get("Content-Length", "0") or 0)
            if length > MAX_BODY:
                return self.reply(413, "an offer is at most %d bytes\n" % MAX_BODY)
            if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/sdp":
                return self.reply(415, "application/sdp only\n")
            body = self.rfile.read(length).decode()
            result["posts"] += 1
            if result["posts"] > 1:
                return self.reply(409, "one publisher at a time\n")
            try:
                answer = answerer.answer(body)
            except Exception as error:  # the reason goes back to rtenc and into OUT.json
                result["errors"].append("answer: %s" % error)
                return self.reply(400, "%s\n" % error)
            result["status"] = 201
            self.reply(201, answer, [("Content-Type", "application/sdp"), ("Location", "whip/session/1")])

        def do_DELETE(self):
            if self.path != "/whip/session/1":
                return self.reply(404, "nothing at DELETE %s\n" % self.path)
            result["delete_received"] = True
            self.reply(200)
            GLib.timeout_add(200, loop.quit)  # let the last frames in

        def log_message(self, *_):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main(port, seconds, out, codec):
    result = {"posts": 0, "status": None, "codec": ELEMENTS[codec][0], "frames": 0, "delete_received": False, "errors": []}
    Gst.init(None)
    loop = GLib.MainLoop()
    answerer = Answerer(codec, result, loop)
    server = serve(port, answerer, result, loop)
    print("listening", flush=True)
    GLib.timeout_add(int(seconds * 1000), lambda: (result.setdefault("timed_out", True), loop.quit()) and False)
    loop.run()
    server.shutdown()
    with answerer.lock:
        if answerer.tally is not None:
            answerer.tally.finish()
    answerer.pipeline.set_state(Gst.State.NULL)
    with open(out, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    args = sys.argv[1:]
    codec = "h265"
    if "--codec" in args:
        i = args.index("--codec"); codec = args[i + 1]; del args[i:i + 2]
    if len(args) != 3 or codec not in ELEMENTS:
        sys.exit(__doc__)
    main(int(args[0]), float(args[1]), args[2], codec)
