#!/usr/bin/env python3
"""Writes the seed corpora under fuzz/Corpus/<target>/ from real x264 output and the RTP/RTCP test vectors.

Inputs: the committed fixture Tests/BitstreamTests/Fixtures/x264-high-64x64-2slices-bf1-g4.h264, plus three tiny
streams ffmpeg/libx264 makes here (Baseline/CAVLC, interlaced Main, High with a custom scaling matrix), so the seeds
reach the slice-header syntax those features switch on. NAL units are cut after their first bytes: the parsers
read headers, and short seeds keep the corpus small (the whole corpus stays under 200 KB) and the fuzzer fast.

The SPSs of other encoders and of peers' test vectors (OpenH264, mediacommon, libwebrtc) are read from
Tests/Support/ForeignParameterSets.swift, where they are kept with their sources and ffprobe's reading.

Run from the repository root: python3 fuzz/scripts/make_corpus.py   (rewrites fuzz/Corpus)
"""
import hashlib
import re
import os
import shutil
import struct
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "fuzz", "Corpus")
FIXTURE = os.path.join(ROOT, "Tests", "BitstreamTests", "Fixtures", "x264-high-64x64-2slices-bf1-g4.h264")
FOREIGN = os.path.join(ROOT, "Tests", "Support", "ForeignParameterSets.swift")
OPENH264_PPS = bytes.fromhex("68ce3c80")


def foreign_sps():
    """name -> SPS NAL unit, from the Fixture(name: ..., hex: ...) entries of ForeignParameterSets.swift."""
    text = open(FOREIGN).read()
    return {name: bytes.fromhex(h) for name, h in re.findall(r'name: "([^"]+)", hex: "([0-9a-fA-F]+)"', text)}

# name -> extra ffmpeg arguments for a 64x64, 6-frame libx264 stream
ENCODES = {
    "x264-baseline-64x64": ["-profile:v", "baseline"],
    "x264-main-interlaced-64x64": ["-profile:v", "main", "-flags", "+ildct+ilme", "-x264-params", "interlaced=1:bframes=2"],
    "x264-high-cqm-64x64": ["-profile:v", "high", "-x264-params", "cqm=jvt:weightp=2:bframes=2:b-pyramid=normal"],
}


def split_annexb(data):
    """NAL units of an Annex-B stream (start codes and trailing zeros removed)."""
    units, i, starts = [], 0, []
    while True:
        j = data.find(b"\x00\x00\x01", i)
        if j < 0:
            break
        starts.append(j + 3)
        i = j + 3
    for n, s in enumerate(starts):
        e = starts[n + 1] - 3 if n + 1 < len(starts) else len(data)
        units.append(data[s:e].rstrip(b"\x00"))
    return units


def annexb(units, short=False):
    return b"".join((b"\x00\x00\x01" if short else b"\x00\x00\x00\x01") + u for u in units)


def avcc(units, length_size):
    return b"".join(len(u).to_bytes(length_size, "big") + u for u in units)


def cut(unit, size):
    """A NAL unit cut to `size` bytes, without a trailing zero byte (which Annex-B could not carry)."""
    return unit[:size].rstrip(b"\x00") or unit[:1]


def nal_type(unit):
    return unit[0] & 0x1F


def streams():
    out = {"x264-high-64x64-2slices-bf1-g4": open(FIXTURE, "rb").read()}
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in ENCODES.items():
            path = os.path.join(tmp, name + ".h264")
            subprocess.run(
                ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x64:rate=30", "-frames:v", "6",
                 "-c:v", "libx264", "-preset", "veryfast"] + args + [path],
                check=True)
            out[name] = open(path, "rb").read()
    return out


def avcc_record(sps, pps):
    rec = bytes([1, sps[1], sps[2], sps[3], 0xFF, 0xE1]) + struct.pack(">H", len(sps)) + sps
    rec += bytes([1]) + struct.pack(">H", len(pps)) + pps
    if sps[1] in (100, 110, 122, 144):
        rec += bytes([0xFD, 0xF8, 0xF8, 0])  # chroma_format 1, 8-bit, no SPS extensions
    return rec


# RTP (RFC 3550 §5.1) and RFC 6184 payloads

def rtp(payload, seq, ts, marker=False, csrcs=(), extension=None, padding=0, pt=96, ssrc=0x12345678):
    first = 0x80 | (0x20 if padding else 0) | (0x10 if extension is not None else 0) | len(csrcs)
    head = struct.pack(">BBHII", first, (0x80 if marker else 0) | pt, seq & 0xFFFF, ts & 0xFFFFFFFF, ssrc)
    head += b"".join(struct.pack(">I", c) for c in csrcs)
    if extension is not None:
        profile, body = extension
        head += struct.pack(">HH", profile, len(body) // 4) + body
    pad = (b"\x00" * (padding - 1) + bytes([padding])) if padding else b""
    return head + payload + pad


def payloads(units, mtu):
    """RFC 6184 non-interleaved payloads: STAP-A for runs of small units, FU-A for large ones, single otherwise."""
    out, stap = [], []

    def flush():
        if len(stap) == 1:
            out.append(stap[0])
        elif stap:
            nri = max(u[0] & 0x60 for u in stap)
            out.append(bytes([nri | 24]) + b"".join(struct.pack(">H", len(u)) + u for u in stap))
        stap.clear()

    for u in units:
        if len(u) + 3 <= mtu and sum(len(s) + 2 for s in stap) + len(u) + 3 <= mtu:
            stap.append(u)
            continue
        flush()
        if len(u) <= mtu:
            stap.append(u)
            continue
        data, first = u[1:], True
        while data:
            part, data = data[: mtu - 2], data[mtu - 2:]
            fu_header = (0x80 if first else 0) | (0x40 if not data else 0) | nal_type(u)
            out.append(bytes([(u[0] & 0xE0) | 28, fu_header]) + part)
            first = False
    flush()
    return out


def hevc_payloads(units, mtu):
    """RFC 7798 payloads without DONL: AP for runs of small units, FU for large ones, single otherwise."""
    out, ap = [], []

    def flush():
        if len(ap) == 1:
            out.append(ap[0])
        elif ap:
            f = 0x80 if any(u[0] & 0x80 for u in ap) else 0
            tid = min(u[1] & 0x07 for u in ap)
            out.append(bytes([f | 48 << 1, tid]) + b"".join(struct.pack(">H", len(u)) + u for u in ap))
        ap.clear()

    for u in units:
        if len(u) + 4 <= mtu and sum(len(a) + 2 for a in ap) + len(u) + 4 <= mtu:
            ap.append(u)
            continue
        flush()
        if len(u) <= mtu:
            ap.append(u)
            continue
        data, first = u[2:], True
        while data:
            part, data = data[: mtu - 3], data[mtu - 3:]
            fu_header = (0x80 if first else 0) | (0x40 if not data else 0) | (u[0] >> 1 & 0x3F)
            out.append(bytes([(u[0] & 0x81) | 49 << 1, u[1], fu_header]) + part)
            first = False
    flush()
    return out


def hevc_seeds():
    """FuzzDepacketizer seeds for RFC 7798 (setup bit 7): three x265 access units at MTU 60, in order and reordered."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "x265.h265")
        subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=64x64:rate=30",
                        "-frames:v", "3", "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error:info=0",
                        "-f", "hevc", path], check=True)
        with open(path, "rb") as f:
            units = split_annexb(f.read())
    access_units, current = [], []
    for u in units:
        vcl = (u[0] >> 1 & 0x3F) < 32
        if current and any((c[0] >> 1 & 0x3F) < 32 for c in current) and (not vcl or u[2] & 0x80):
            access_units.append(current)
            current = []
        current.append(cut(u, 120))
    access_units.append(current)
    write("FuzzDepacketizer", "x265-64x64", depacketizer_input(access_units[:3], 60, window=63 | 0x80, packetize=hevc_payloads))
    count = sum(len(hevc_payloads(a, 60)) for a in access_units[:3])
    order = [i ^ 1 if (i ^ 1) < count else i for i in range(count)]
    write("FuzzDepacketizer", "x265-64x64-reordered",
          depacketizer_input(access_units[:3], 60, order=order, window=7 | 0x80, packetize=hevc_payloads))


def depacketizer_input(access_units, mtu, order=None, window=63, packetize=payloads):
    """The FuzzDepacketizer layout (see its source): per packet a control byte, a length byte, the payload."""
    packets = []
    for n, units in enumerate(access_units):
        ps = packetize(units, mtu)
        for k, p in enumerate(ps):
            packets.append((n, k == len(ps) - 1, p))
    out = bytearray([window])
    seq = 0
    last_au = 0
    for index in (order or range(len(packets))):
        au, marker, p = packets[index]
        # Absolute sequence number (bits 1-2 = 3) and timestamp (bits 3-4 = 3): reordering needs both.
        control = (1 if marker else 0) | 3 << 1 | 3 << 3
        out += bytes([control]) + struct.pack(">H", index) + struct.pack(">I", 3000 * au) + bytes([len(p)]) + p
        last_au = au
    return bytes(out)


RTCP = {
    # From Tests/RTPOutTests/RTCPTests.swift
    "sr-sdes": "81c8000c12345678e65a8b0080000000" "00015f90000000640001 86a09abcdef0" "40fffffe0001000500000020 8b008000"
               "00010000 81ca0003 12345678 01057274 656e6300",
    "pli": "81ce0002 00000001 12345678",
    "fir": "84ce0004 00000001 00000000 12345678 07000000",
    "nack": "81cd0003 00000001 12345678 00640005",
    "remb": "8fce0005 00000001 00000000 52454d42 010bd090 12345678",
    "tmmbr": "83cd0004 00000001 00000000 12345678 0bd09028",
    "tmmbn": "84cd0004 00000001 00000000 12345678 0bd09028",
    "bye": "81cb0002 12345678 00000000",
    # RR with one block for 0x12345678 (LSR/DLSR set, so the RTT path runs), SDES, PLI; padding on the last packet
    "rr-sdes-pli-padded": "81c90007 00000001 12345678 10000003 00010064 00000010 a0000000 00008000"
                          "81ca0002 00000001 01016100"
                          "a1ce0003 00000001 12345678 00000004",
    "app": "80cc0003 12345678 6e616d65 01020304",
}

# FuzzSTUN: a control byte, then the input. Control 0x01: the rest is a datagram as it arrived (the RFC 5769 vectors,
# Tests/WebRTCTests/STUNVectorTests.swift). Control 0x00 (signed and fingerprinted as a request by the target) or
# 0x04 (unsigned): the rest is (type, length byte, value) triples the target turns into attributes.
STUN = {
    "rfc5769-request": "01" "00010058 2112a442 b7e7a701 bc34d686 fa87dfae 80220010 5354554e 20746573 7420636c 69656e74"
                       "00240004 6e0001ff 80290008 932ff9b1 51263b36 00060009 6576746a 3a683676 59202020"
                       "00080014 9aeaa70c bfd8cb56 781ef2b5 b2d3f249 c1b571a2 80280004 e57a3bcf",
    "rfc5769-ipv4-response": "01" "0101003c 2112a442 b7e7a701 bc34d686 fa87dfae 8022000b 74657374 20766563 746f7220"
                             "00200008 0001a147 e112a643 00080014 2b91f599 fd9e90c3 8c7489f9 2af9ba53 f06be7d7"
                             "80280004 c07d4c96",
    "rfc5769-ipv6-response": "01" "01010048 2112a442 b7e7a701 bc34d686 fa87dfae 8022000b 74657374 20766563 746f7220"
                             "00200014 0002a147 0113a9fa a5d3f179 bc25f4b5 bed2b9d9 00080014 a382954e 4be67bf1"
                             "1784c97c 8292c275 bfe3ed41 80280004 c8fb0b4c",
    "rfc5769-long-term": "01" "00010060 2112a442 78ad3433 c6ad72c0 29da412e 00060012 e3839ee3 8388e383 aae38383"
                         "e382afe3 82b90000 0015001c 662f2f34 39396b39 35346436 4f4c3334 6f4c3946 53547679 36347341"
                         "0014000b 6578616d 706c652e 6f726700 00080014 f6702465 6dd64a3e 02b8e071 2e85c9a2 8ca89666",
    # PRIORITY, ICE-CONTROLLING, USE-CANDIDATE: a nominating check.
    "check-use-candidate": "00" "0024 04 6e0001ff" "802a 08 0102030405060708" "0025 00",
    # ICE-CONTROLLED: the role conflict.
    "check-controlled": "00" "0024 04 6e0001ff" "8029 08 0102030405060708",
    # An unknown comprehension-required attribute (420) and GOOG-NETWORK-INFO.
    "check-unknown": "00" "802a 08 0102030405060708" "7f00 02 abcd" "c057 04 0001000a",
    "check-unsigned": "04" "802a 08 0102030405060708",
}


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def whep_http_seeds():
    """FuzzWHEPHTTP: a control byte (bit 0 token, bits 1-2 endpoint refusal, bit 3 small body cap, bits 4-7 pieces - 1)
    and the request bytes: every route of the WHEP server, with the recorded Chromium offer as the POST body."""
    with open(os.path.join(ROOT, "Tests", "WebRTCTests", "Fixtures", "chromium-156-whep-recvonly-h264.sdp"), "rb") as f:
        offer = f.read()
    def post(body, extra=b"", content_type=b"application/sdp"):
        return (b"POST /whep HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " + content_type + b"\r\n" + extra
                + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    seeds = {
        "post-chromium-offer": (0x00, post(offer)),
        "post-in-pieces-with-token": (0x31, post(offer, b"Authorization: Bearer s3cret\r\n")),
        "post-refused-503": (0x06, post(b"v=0\r\n")),
        "post-over-the-cap": (0x08, post(offer)),
        "post-chunked": (0x00, b"POST /whep HTTP/1.1\r\nHost: x\r\nContent-Type: application/sdp\r\nTransfer-Encoding: chunked\r\n\r\n"
                                b"4\r\nv=0\n\r\n0\r\n\r\n"),
        "post-json": (0x00, post(b"{}", content_type=b"application/json")),
        "options-preflight": (0x00, b"OPTIONS /whep HTTP/1.1\r\nHost: x\r\nOrigin: http://a\r\nAccess-Control-Request-Method: POST\r\n\r\n"),
        "delete-session": (0x01, b"DELETE /whep/fuzz-Session_1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n\r\n"),
        "patch-trickle": (0x00, b"PATCH /whep/fuzz-Session_1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/trickle-ice-sdpfrag\r\nContent-Length: 0\r\n\r\n"),
        "get-page": (0x00, b"GET /?x=1 HTTP/1.1\r\nHost: x\r\n\r\n"),
        "two-requests": (0x00, b"GET / HTTP/1.1\r\nHost: x\r\n\r\nDELETE /whep/nothing HTTP/1.1\r\nHost: x\r\n\r\n"),
        "garbage": (0x00, b"BLAH\r\n\r\n\x01\x02"),
    }
    for name, (control, request) in seeds.items():
        write("FuzzWHEPHTTP", name, bytes([control]) + request)


def stun_seeds():
    for name, hexes in STUN.items():
        write("FuzzSTUN", name, bytes.fromhex(hexes.replace(" ", "")))


def timeline_seeds():
    """FuzzTimeline: the example timelines and track, and the JSON documents of the Composition tests (Swift
    multi-line string literals that hold a timeline, without interpolation)."""
    examples = os.path.join(ROOT, "examples")
    for name in sorted(os.listdir(examples)):
        with open(os.path.join(examples, name), "rb") as f:
            write("FuzzTimeline", "example-" + name, f.read())
    tests = os.path.join(ROOT, "Tests", "CompositionTests")
    seen = set()
    for name in sorted(os.listdir(tests)):
        text = open(os.path.join(tests, name)).read()
        for n, literal in enumerate(re.findall(r'"""\n(.*?)\n\s*"""', text, re.S)):
            if '"version"' not in literal or "\\(" in literal:
                continue
            lines = literal.split("\n")
            indent = min(len(l) - len(l.lstrip()) for l in lines if l.strip())
            document = "\n".join(l[indent:] for l in lines).replace("\\\\", "\\").encode()
            if document in seen:
                continue
            seen.add(document)
            write("FuzzTimeline", f"{name[:-len('.swift')]}-{n}.json", document)


def main():
    shutil.rmtree(CORPUS, ignore_errors=True)
    all_sps, all_pps = [], []
    for name, data in streams().items():
        units = split_annexb(data)
        sps = [u for u in units if nal_type(u) == 7]
        pps = [u for u in units if nal_type(u) == 8]
        slices = [u for u in units if nal_type(u) in (1, 5)]
        all_sps += sps
        all_pps += pps
        head = [u for u in units if nal_type(u) in (6, 7, 8, 9)][:4]
        headers = [cut(u, 40) for u in slices[:8]]

        write("FuzzAnnexB", name, annexb([cut(u, 64) for u in head] + headers[:3]))
        write("FuzzAnnexB", name + "-short-start-codes", b"\x00" + annexb(headers[:3], short=True) + b"\x00\x00")
        write("FuzzAVCC", name + "-len4", bytes([0x03]) + avcc([cut(u, 48) for u in units[:6]], 4))
        write("FuzzAVCC", name + "-len2-with-avcC", bytes([0x05]) + avcc(headers[:4], 2))
        write("FuzzAVCC", name + "-len1", bytes([0x00]) + avcc(headers[:4], 1))
        write("FuzzAVCDecoderConfigurationRecord", name, avcc_record(sps[0], pps[0]))
        for n, u in enumerate(sps + pps):
            write("FuzzParameterSets", f"{name}-{'sps' if nal_type(u) == 7 else 'pps'}{n}", u)
        write("FuzzSliceHeader", name, annexb(sps + pps + headers))
        write("FuzzSliceHeader", name + "-idr-slice", headers[0])

        # RTP: real payloads in real headers.
        access_units, current = [], []
        for u in units[:20]:
            if nal_type(u) in (7, 9) and any(nal_type(c) in (1, 5) for c in current):
                access_units.append(current)
                current = []
            current.append(cut(u, 120))
        access_units.append(current)
        ps = payloads(access_units[0], 60)
        for n, p in enumerate(ps[:4]):
            write("FuzzRTPPacket", f"{name}-{n}", rtp(p, 100 + n, 90000, marker=n == len(ps) - 1))
        # MTU 60: small packets, so the seeds hold single NAL units, STAP-A and FU-A runs in under 1 KB.
        write("FuzzDepacketizer", name, depacketizer_input(access_units[:3], 60))
        count = sum(len(payloads(a, 60)) for a in access_units[:3])
        # Reordered (pairs swapped), and with a packet missing.
        order = [i ^ 1 if (i ^ 1) < count else i for i in range(count)]
        write("FuzzDepacketizer", name + "-reordered", depacketizer_input(access_units[:3], 60, order=order, window=7))
        write("FuzzDepacketizer", name + "-lost", depacketizer_input(access_units[:3], 60, order=[i for i in range(count) if i != 2]))

    # Other encoders' SPSs (OpenH264's out-of-range log2_max_mv_length, peers' cut VUIs), and OpenH264's PPS.
    for name, sps in foreign_sps().items():
        write("FuzzParameterSets", name + "-sps", sps)
        if name.startswith("openh264"):
            write("FuzzAVCDecoderConfigurationRecord", name, avcc_record(sps, OPENH264_PPS))
    write("FuzzParameterSets", "openh264-pps", OPENH264_PPS)

    single = bytes([0x65, 0x88, 0x84, 0x00, 0x21])
    write("FuzzRTPPacket", "csrc-extension-padding",
          rtp(single, 65535, 0xFFFFFFFF, marker=True, csrcs=(1, 2), extension=(0xBEDE, b"\x10\xAA\x00\x00"), padding=4))
    write("FuzzRTPPacket", "two-byte-extension", rtp(single, 7, 3000, extension=(0x1000, b"\x01\x02\xAB\xCD")))
    write("FuzzRTPPacket", "stap-a", rtp(bytes([24]) + b"\x00\x04" + all_sps[0][:4] + b"\x00\x02" + all_pps[0][:2], 1, 0))

    hevc_seeds()

    for name, hexes in RTCP.items():
        write("FuzzRTCPCompound", name, bytes.fromhex(hexes.replace(" ", "")))
    stun_seeds()
    timeline_seeds()

    # WebRTC SDP: the real offers and answers scripts/capture-webrtc-sdp.sh recorded (Chromium, aiortc).
    sdp = os.path.join(ROOT, "Tests", "WebRTCTests", "Fixtures")
    for name in sorted(os.listdir(sdp)):
        if name.endswith(".sdp") and not name.startswith("rtenc-"):
            with open(os.path.join(sdp, name), "rb") as f:
                write("FuzzWebRTCSDP", name, f.read())

    whep_http_seeds()

    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(CORPUS) for f in fs)
    files = sum(len(fs) for _, _, fs in os.walk(CORPUS))
    print(f"{files} seed files, {total} bytes under {os.path.relpath(CORPUS, ROOT)}")


if __name__ == "__main__":
    main()
