#!/usr/bin/python3
"""Many light WHEP viewers in one process, for the viewers-per-process benchmark (BENCHMARKS.md "WebRTC"): each is a
full aiortc peer (ICE, DTLS, SRTP, RTCP with REMB and NACK, its jitter buffer assembling whole frames) that does not
decode: aiortc's decoder is replaced by a counter of the frames the jitter buffer completes, so N viewers cost the
players a fraction of a core instead of N H.264 decoders, and what is measured is what rtenc sends.

    whep-aiortc-viewers.py URL SECONDS COUNT

Offers are POSTed 0.1 s apart. Prints one JSON object: viewers (per viewer: status, frames, per_second — frames
completed in each whole second of the Unix clock, so a caller picks its window —, packets, lost, first_frame_ms from
its POST). Exit 0 when every viewer got a frame.
"""
import asyncio, json, sys, time, urllib.parse

from whep_http import http  # beside this script

ARRIVALS = {}  # id(a receiver's track queue) → the times its frames completed

def patch_decoder():
    """aiortc's receiver hands every complete frame to a decoder thread (`decoder_worker`, whose output queue is its
    track's): count the frames there instead of decoding them."""
    from aiortc import rtcrtpreceiver

    def counting_worker(loop, input_q, output_q):
        arrivals = ARRIVALS.setdefault(id(output_q), [])
        while input_q.get() is not None:
            arrivals.append(time.time())

    rtcrtpreceiver.decoder_worker = counting_worker

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
    return pc

async def main(url, seconds, count):
    patch_decoder()
    records = [{} for _ in range(count)]
    pcs = []
    start = time.time()
    for record in records:
        pcs.append(await viewer(url, record))
        await asyncio.sleep(0.1)
    await asyncio.sleep(max(0.0, start + seconds - time.time()))
    for record, pc in zip(records, pcs):
        receivers = pc.getReceivers()
        arrivals = ARRIVALS.get(id(receivers[0].track._queue), []) if receivers and receivers[0].track else []
        stats = await pc.getStats()
        inbound = [s for s in stats.values() if s.type == "inbound-rtp"]
        per_second = {}
        for t in arrivals:
            per_second[int(t)] = per_second.get(int(t), 0) + 1
        record.update(frames=len(arrivals), per_second=per_second,
                      packets=sum(s.packetsReceived for s in inbound), lost=sum(s.packetsLost for s in inbound))
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
