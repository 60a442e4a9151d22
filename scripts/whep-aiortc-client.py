#!/usr/bin/python3
"""An independent WHEP player for rtenc's tests: aiortc (Debian python3-aiortc) POSTs a recvonly H.264 offer to
`rtenc serve`, receives the track, decodes frames for SECONDS and reads the clock barcode (MediaIO's ClockBarcode:
24 blocks along the top, 235 = 1, 60 = 0, most significant bit left) from each decoded picture.

    whep-aiortc-client.py URL [SECONDS] [--token T] [--delete] [--settle S]

Prints one JSON object: frames, codes_read, monotonic (codes never go back), latency_ms (median/p90 of own clock -
code over the pictures with a new code; one that shows the code of the picture before it again is no newer capture
and is counted in `stale` instead), first_frame_ms (from the POST), size, location, status; with --settle,
latency_settled_ms and stale_settled: the same for the frames decoded S seconds or more after the POST (a link's
steady state, after the rate control settled);
exit 0 when it decoded at least one frame.
aioice skips exactly 127.0.0.1 when gathering, which does not matter: rtenc is ICE-lite and only needs our checks,
which aioice sends from the host addresses it has (the test adds 127.0.0.2/8 to lo).
"""
import asyncio, json, sys, time

from clock_barcode import read_barcode  # beside this script
from whep_http import http  # beside this script

async def main(url, seconds, token, delete, settle=None):
    from aiortc import RTCPeerConnection, RTCSessionDescription
    from aiortc.rtcrtpreceiver import RTCRtpReceiver
    pc = RTCPeerConnection()
    transceiver = pc.addTransceiver("video", direction="recvonly")
    transceiver.setCodecPreferences([c for c in RTCRtpReceiver.getCapabilities("video").codecs if c.mimeType == "video/H264"])
    track_ready = asyncio.get_running_loop().create_future()
    pc.on("track", lambda track: track_ready.done() or track_ready.set_result(track))
    await pc.setLocalDescription(await pc.createOffer())
    posted = time.time()
    status, answer, location = await asyncio.to_thread(http, "POST", url, pc.localDescription.sdp, token)
    result = {"status": status, "location": location, "frames": 0, "codes_read": 0, "monotonic": True, "stale": 0, "stale_settled": 0}
    if status != 201:
        result["error"] = answer.strip()
        await pc.close()
        return result
    await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
    latencies, settled, last = [], [], None
    deadline = posted + seconds
    try:
        track = await asyncio.wait_for(track_ready, timeout=seconds)
        while time.time() < deadline:
            frame = await asyncio.wait_for(track.recv(), timeout=max(0.1, deadline - time.time()))
            now_ms = int(time.time() * 1000)
            if result["frames"] == 0:
                result["first_frame_ms"] = round((time.time() - posted) * 1000)
            result["frames"] += 1
            result["size"] = [frame.width, frame.height]
            code = read_barcode(frame.to_ndarray(format="gray"))
            if code is None:
                continue
            result["codes_read"] += 1
            if code == last:
                # The picture before showed this code too: the barcode was not refreshed (a P frame that left its
                # blocks skipped, as x264 does at QP 51), so this is no newer capture; its "latency" would only say
                # how long that region stayed unchanged. Counted apart.
                result["stale"] += 1
                if settle is not None and time.time() - posted >= settle:
                    result["stale_settled"] += 1
                continue
            if last is not None and ((code - last) & 0xFFFFFF) > 0x800000:
                result["monotonic"] = False
            last = code
            latency = ((now_ms & 0xFFFFFF) - code) % 0x1000000
            latencies.append(latency)
            if settle is not None and time.time() - posted >= settle:
                settled.append(latency)
    except asyncio.TimeoutError:
        pass
    def percentiles(values):
        values = sorted(values)
        return {"median": values[len(values) // 2], "p90": values[int(len(values) * 0.9)], "count": len(values)}
    if latencies:
        result["latency_ms"] = percentiles(latencies)
    if settled:
        result["latency_settled_ms"] = percentiles(settled)
    if delete and location:
        target = urllib.parse.urljoin(url, location)
        result["delete_status"] = (await asyncio.to_thread(http, "DELETE", target, None, token))[0]
    await pc.close()
    return result

if __name__ == "__main__":
    import urllib.parse
    args = [a for a in sys.argv[1:]]
    token = None
    if "--token" in args:
        i = args.index("--token"); token = args[i + 1]; del args[i:i + 2]
    settle = None
    if "--settle" in args:
        i = args.index("--settle"); settle = float(args[i + 1]); del args[i:i + 2]
    delete = "--delete" in args
    args = [a for a in args if a != "--delete"]
    if not args:
        sys.exit(__doc__)
    out = asyncio.run(main(args[0], float(args[1]) if len(args) > 1 else 10.0, token, delete, settle))
    print(json.dumps(out), flush=True)
    sys.exit(0 if out.get("frames", 0) > 0 else 1)
