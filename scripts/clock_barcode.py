"""The clock barcode of rtenc's test pattern (MediaIO's ClockBarcode), read from a decoded picture's luma: 24 blocks
along the top, 235 = 1, 60 = 0, most significant bit left; the wall clock in ms mod 2^24. Shared by the aiortc
scripts (whep-aiortc-client.py, whip-aiortc-server.py)."""

def read_barcode(luma):
    """The code, or None when the picture is too small or a block is ambiguous (not a barcoded frame, or damaged)."""
    height, width = luma.shape
    block = 20 if width >= 480 else max(2, (width // 24) & ~1)
    if block * 24 > width or block > height:
        return None
    inset = block // 4
    side = max(1, block - 2 * inset)
    code = 0
    for bit in range(24):
        mean = luma[inset:inset + side, bit * block + inset: bit * block + inset + side].mean()
        if abs(mean - (235 + 60) / 2) < 40:
            return None
        code = (code << 1) | (1 if mean > (235 + 60) / 2 else 0)
    return code

class FrameTally:
    """What a test player or server reports about the pictures it decoded, into `result` (a dict): frames,
    first_frame_ms (from `start`, seconds), size, codes_read, monotonic (codes never go back), first_code and last_code
    (their span says how many pictures were due in between), and at the end
    latency_ms (median and p90 of own clock minus code)."""

    def __init__(self, result, start):
        self.result, self.start = result, start
        self.latencies, self.last = [], None
        result.update({"frames": 0, "codes_read": 0, "monotonic": True})

    def add(self, frame, now):
        r = self.result
        if r["frames"] == 0:
            r["first_frame_ms"] = round((now - self.start) * 1000)
        r["frames"] += 1
        r["size"] = [frame.width, frame.height]
        code = read_barcode(frame.to_ndarray(format="gray"))
        if code is None:
            return
        r["codes_read"] += 1
        r.setdefault("first_code", code)
        r["last_code"] = code
        # Codes of a live stream never go back (mod 2^24).
        if self.last is not None and ((code - self.last) & 0xFFFFFF) > 0x800000:
            r["monotonic"] = False
        self.last = code
        self.latencies.append(((int(now * 1000) & 0xFFFFFF) - code) % 0x1000000)

    def finish(self):
        if self.latencies:
            l = sorted(self.latencies)
            self.result["latency_ms"] = {"median": l[len(l) // 2], "p90": l[int(len(l) * 0.9)]}
