#!/usr/bin/python3
"""Many light WHEP viewers in one process, for the viewers-per-process benchmark (BENCHMARKS.md "WebRTC"): each is
an aiortc peer for ICE (with consent checks), DTLS and SRTP (libsrtp2 authenticates and decrypts every packet), but
what arrives goes to a counter instead of aiortc's receiver: no RTP parsing in Python, no jitter buffer, no NACK and
**no REMB** (so the shared encoder target is not pulled down by players that fall behind: what is measured is what
rtenc sends, at its --bitrate). A frame counts as complete when its marker packet arrives with no sequence number
missing since the previous frame's (RTX packets, which nothing here asks for, are not counted).

    whep-aiortc-viewers.py URL SECONDS COUNT

Offers are POSTed 0.1 s apart. Prints one JSON object: viewers (per viewer: status, frames, per_second — frames
completed in each whole second of the Unix clock, so a caller picks its window —, packets, lost (sequence numbers
never seen), first_frame_ms from its POST). Exit 0 when every viewer got a frame.
"""
import asyncio, json, sys, time, urllib.parse

from whep_http import http  # beside this script

COUNTERS = {}  # id(a viewer's RTCDtlsTransport) → its FrameCounter

class FrameCounter:
    """Complete frames of one payload type, from the RTP fixed header (RFC 3550 §5.1) of decrypted packets."""
    def __init__(self):
        self.payload_type, self.arrivals, self.packets, self.lost = None, [], 0, 0
        self.last_seq, self.broken = None, False

    def add(self, data):
        if len(data) < 12 or self.payload_type is None or data[1] & 0x7F != self.payload_type:
            return
        self.packets += 1
        seq = data[2] << 8 | data[3]
        if self.last_seq is not None and seq != (self.last_seq + 1) & 0xFFFF:
            gap = (seq - self.last_seq - 1) & 0xFFFF
            if gap >= 0x8000:  # a duplicate or a late packet, not a gap: counted as neither
                return
            self.lost += gap
            self.broken = True
        self.last_seq = seq
        if data[1] & 0x80:  # the marker: the frame's last packet
            if not self.broken:
                self.arrivals.append(time.time())
            self.broken = False

def patch_transport():
    """aiortc's DTLS transport hands each unprotected RTP packet to `_handle_rtp_data`: count it there instead."""
    from aiortc import rtcdtlstransport

    async def counting(self, data, arrival_time_ms):
        COUNTERS.setdefault(id(self), FrameCounter()).add(data)

    rtcdtlstransport.RTCDtlsTransport._handle_rtp_data = counting

# Longer than a single player's 5 s: the server answers many viewers' offers while it is busy setting up the others.
VIEWER_HTTP_TIMEOUT = 10

async def viewer(url, record):
    from aiortc import RTCPeerConnection, RTCSessionDescription
    from aiortc.rtcrtpreceiver import RTCRtpReceiver
    pc = RTCPeerConnection()
    transceiver = pc.addTransceiver("video", direction="recvonly")
    transceiver.setCodecPreferences([c for c in RTCRtpReceiver.getCapabilities("video").codecs if c.mimeType == "video/H264"])
    await pc.setLocalDescription(await pc.createOffer())
    record["posted"] = time.time()
    status, answer, location = await asyncio.to_thread(http, "POST", url, pc.localDescription.sdp, timeout=VIEWER_HTTP_TIMEOUT)
    record.update(status=status, location=location)
    if status != 201:
        record["error"] = answer.strip()[:200]
        return pc
    await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
    counter = COUNTERS.setdefault(id(transceiver.receiver.transport), FrameCounter())
    counter.payload_type = next((int(line.split()[0].split(":")[1]) for line in answer.splitlines()
                                 if line.startswith("a=rtpmap:") and "H264/90000" in line), None)
    if counter.payload_type is None:
        record["error"] = "the answer has no H264/90000 rtpmap"
    return pc

async def main(url, seconds, count):
    patch_transport()
    records = [{} for _ in range(count)]
    pcs = []
    start = time.time()
    for record in records:
        pcs.append(await viewer(url, record))
        await asyncio.sleep(0.1)
    await asyncio.sleep(max(0.0, start + seconds - time.time()))
    for record, pc in zip(records, pcs):
        counter = COUNTERS.get(id(pc.getTransceivers()[0].receiver.transport)) or FrameCounter()
        arrivals = counter.arrivals
        per_second = {}
        for t in arrivals:
            per_second[int(t)] = per_second.get(int(t), 0) + 1
        record.update(frames=len(arrivals), per_second=per_second,
                      packets=counter.packets, lost=counter.lost)
        if arrivals and "posted" in record:
            record["first_frame_ms"] = round((arrivals[0] - record["posted"]) * 1000)
        record.pop("posted", None)
        if record.get("location"):
            await asyncio.to_thread(http, "DELETE", urllib.parse.urljoin(url, record["location"]), timeout=VIEWER_HTTP_TIMEOUT)
    for pc in pcs:
        await pc.close()
    return {"viewers": records}

if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) != 3:
        sys.exit(__doc__)
    out = asyncio.run(main(args[0], float(args[1]), int(args[2])))
    print(json.dumps(out), flush=True)
    sys.exit(0 if all(v.get("frames", 0) > 0 for v in out["viewers"]) else 1)
