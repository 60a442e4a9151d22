#!/usr/bin/python3
"""The aiortc sender for the side-by-side benchmark (BENCHMARKS.md "WebRTC"): a WHEP server that sends what
`rtenc serve testsrc:barcode` sends — ffmpeg's testsrc with the clock barcode (MediaIO's ClockBarcode: 24 blocks along
the top, 235 = 1, 60 = 0, chroma neutral, most significant bit left; the wall clock in ms mod 2^24) drawn when each
frame is due — through aiortc's own stack (Debian python3-aiortc: its libx264 settings, pacing and RTCP), to the
very player page rtenc serves (saved beforehand, so both senders are measured by the same JavaScript).

    whep-aiortc-server.py PORT SECONDS PAGE.html WIDTHxHEIGHT

GET / → PAGE.html; POST /whep (application/sdp) → 201 + answer (H.264 only) + Location; DELETE of it → 200. Exits
after SECONDS. Prints "listening" once it accepts connections.
"""
import asyncio, sys, time

from one_request_http import answer_one_request  # beside this script

def draw_barcode(planes, width, height, code):
    """Writes the code's 24 blocks into a yuv420p frame given as one (height * 3 / 2, width) array."""
    block = 20 if width >= 480 else max(2, (width // 24) & ~1)
    luma = planes[:height]
    chroma_rows = height // 4  # each plane: height/2 rows of width/2, stored two to a row of the array
    u = planes[height:height + chroma_rows].reshape(height // 2, width // 2)
    v = planes[height + chroma_rows:height + 2 * chroma_rows].reshape(height // 2, width // 2)
    for bit in range(24):
        value = 235 if (code >> (23 - bit)) & 1 else 60
        luma[:block, bit * block:(bit + 1) * block] = value
        u[:block // 2, bit * block // 2:(bit + 1) * block // 2] = 128
        v[:block // 2, bit * block // 2:(bit + 1) * block // 2] = 128

def make_track(width, height):
    import av
    from aiortc import VideoStreamTrack

    class BarcodeTrack(VideoStreamTrack):
        """testsrc at 30 fps from libavfilter, the barcode stamped when aiortc's clock says the frame is due."""
        def __init__(self):
            super().__init__()
            source = av.open(f"testsrc=size={width}x{height}:rate=30,format=yuv420p", format="lavfi")
            self.frames = source.decode(video=0)

        async def recv(self):
            pts, time_base = await self.next_timestamp()
            planes = next(self.frames).to_ndarray()
            draw_barcode(planes, width, height, int(time.time() * 1000) & 0xFFFFFF)
            frame = av.VideoFrame.from_ndarray(planes, format="yuv420p")
            frame.pts, frame.time_base = pts, time_base
            return frame

    return BarcodeTrack()

class Server:
    def __init__(self, page, width, height):
        self.page, self.width, self.height = page, width, height
        self.pcs = []

    async def answer(self, offer):
        from aiortc import RTCPeerConnection, RTCSessionDescription
        from aiortc.rtcrtpsender import RTCRtpSender
        pc = RTCPeerConnection()
        self.pcs.append(pc)
        transceiver = pc.addTransceiver(make_track(self.width, self.height), direction="sendonly")
        transceiver.setCodecPreferences([c for c in RTCRtpSender.getCapabilities("video").codecs if c.mimeType == "video/H264"])
        await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
        await pc.setLocalDescription(await pc.createAnswer())
        return pc.localDescription.sdp

    async def handle(self, reader, writer):
        # A broken request shows in the page's result, not as a crash here.
        await answer_one_request(reader, writer, self.route, lambda error: print(f"request failed: {error!r}", file=sys.stderr, flush=True))

    async def route(self, method, path, headers, body):
        if method == "GET" and path == "/":
            return "200 OK", {"Content-Type": "text/html; charset=utf-8"}, self.page
        if method == "POST" and path == "/whep":
            answer = await self.answer(body)
            return "201 Created", {"Content-Type": "application/sdp", "Location": f"/whep/{len(self.pcs)}"}, answer
        if method == "DELETE" and path.startswith("/whep/"):
            return "200 OK", {}, ""
        return "404 Not Found", {}, f"nothing at {method} {path}\n"

async def main(port, seconds, page, width, height):
    server = Server(page, width, height)
    listener = await asyncio.start_server(server.handle, "127.0.0.1", port)
    print("listening", flush=True)
    await asyncio.sleep(seconds)
    listener.close()
    for pc in server.pcs:
        await pc.close()

if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    width, height = (int(n) for n in sys.argv[4].split("x"))
    with open(sys.argv[3], encoding="utf-8") as f:
        page = f.read()
    asyncio.run(main(int(sys.argv[1]), float(sys.argv[2]), page, width, height))
