#!/usr/bin/python3
"""A WHIP server for rtenc's tests: aiortc (Debian python3-aiortc) answers `rtenc stream --whip`'s offer, decodes the
H.264 it receives and reads the clock barcode (MediaIO's ClockBarcode: 24 blocks along the top, 235 = 1, 60 = 0,
most significant bit left) from each decoded picture.

    whip-aiortc-server.py PORT SECONDS OUT.json [--token T] [--remb BITS_PER_SECOND] [--tls CERT.pem KEY.pem]

POST /whip (application/sdp) → 201, the answer, and a relative Location ("session/<n>", resolved by the client
against the URL). DELETE of that resource → 200, and the server writes OUT.json and exits; so it does after SECONDS.
With --token, POST and DELETE without "Authorization: Bearer T" get 401. An offer aiortc cannot answer (H.265 only)
gets 400 with aiortc's reason, and the server ends. With --remb, aiortc's receive-side estimator
is replaced by a fixed REMB of that many bits/s every 200 ms (the forced low REMB of the REMB test). With --tls, it
speaks HTTPS with that certificate chain and key (the HTTPS test makes a CA and a certificate for 127.0.0.1).

OUT.json: posts, status, authorization_ok, frames, codes_read, monotonic, latency_ms, size, first_frame_ms,
delete_received, remb_sent, offer_has_candidates.
"""
import asyncio, json, sys, time
from clock_barcode import FrameTally
from one_request_http import answer_one_request

def force_remb(bitrate, result):
    """aiortc sends REMB when its estimator returns (bitrate, ssrcs): make it return ours, at most every 200 ms."""
    from aiortc import rate
    last = [0]
    def add(self, abs_send_time, arrival_time_ms, payload_size, ssrc):
        if arrival_time_ms - last[0] < 200:
            return None
        last[0] = arrival_time_ms
        result["remb_sent"] += 1
        return bitrate, [ssrc]
    rate.RemoteBitrateEstimator.add = add

class Server:
    def __init__(self, seconds, token, result):
        self.seconds, self.token, self.result = seconds, token, result
        self.done = asyncio.Event()
        self.pcs = []
        self.tally = None

    async def consume(self, track):
        while True:
            self.tally.add(await track.recv(), time.time())

    async def answer(self, offer):
        from aiortc import RTCPeerConnection, RTCSessionDescription
        pc = RTCPeerConnection()
        self.pcs.append(pc)
        pc.on("track", lambda track: asyncio.ensure_future(self.consume(track)))
        await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
        await pc.setLocalDescription(await pc.createAnswer())
        return pc.localDescription.sdp

    async def handle(self, reader, writer):
        # A broken request is the test's failure to see, not a crash.
        await answer_one_request(reader, writer, self.route, lambda error: self.result.setdefault("errors", []).append(repr(error)))

    async def route(self, method, path, headers, body):
        authorized = self.token is None or headers.get("authorization") == "Bearer " + self.token
        if method == "POST" and path == "/whip":
            self.result["posts"] += 1
            if not authorized:
                return "401 Unauthorized", {"WWW-Authenticate": "Bearer"}, "a bearer token is required\n"
            self.result["authorization_ok"] = True
            if headers.get("content-type", "").split(";")[0].strip() != "application/sdp":
                return "415 Unsupported Media Type", {}, "application/sdp only\n"
            self.result["offer_has_candidates"] = "a=candidate:" in body
            self.tally = FrameTally(self.result, time.time())
            try:
                answer = await self.answer(body)
            except Exception as error:  # aiortc takes no codec of the offer (H.265): WHIP's 4xx with its reason
                self.result["status"] = 400
                self.result.setdefault("errors", []).append(repr(error))
                asyncio.get_running_loop().call_later(0.5, self.done.set)  # nothing will come: done once this is sent
                return "400 Bad Request", {}, f"{error}\n"
            self.result["status"] = 201
            return "201 Created", {"Content-Type": "application/sdp", "Location": f"whip/session/{self.result['posts']}"}, answer
        if method == "DELETE" and path.startswith("/whip/session/"):  # "whip/session/N" resolved against /whip
            if not authorized:
                return "401 Unauthorized", {}, "a bearer token is required\n"
            self.result["delete_received"] = True
            self.done.set()
            return "200 OK", {}, ""
        return "404 Not Found", {}, f"nothing at {method} {path}\n"

async def main(port, seconds, out, token, remb, tls):
    result = {"posts": 0, "status": None, "authorization_ok": False, "frames": 0, "delete_received": False, "remb_sent": 0}
    if remb:
        force_remb(remb, result)
    server = Server(seconds, token, result)
    context = None
    if tls:
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*tls)
    listener = await asyncio.start_server(server.handle, "127.0.0.1", port, ssl=context)
    print("listening", flush=True)
    try:
        await asyncio.wait_for(server.done.wait(), seconds)
    except asyncio.TimeoutError:
        result["timed_out"] = True
    await asyncio.sleep(0.2)  # let the last frames in
    listener.close()
    for pc in server.pcs:
        await pc.close()
    if server.tally:
        server.tally.finish()
    with open(out, "w") as f:
        json.dump(result, f)

if __name__ == "__main__":
    args = sys.argv[1:]
    token = remb = tls = None
    if "--token" in args:
        i = args.index("--token"); token = args[i + 1]; del args[i:i + 2]
    if "--remb" in args:
        i = args.index("--remb"); remb = int(args[i + 1]); del args[i:i + 2]
    if "--tls" in args:
        i = args.index("--tls"); tls = (args[i + 1], args[i + 2]); del args[i:i + 3]
    if len(args) != 3:
        sys.exit(__doc__)
    asyncio.run(main(int(args[0]), float(args[1]), args[2], token, remb, tls))
