#!/usr/bin/env python3
"""The receiving side of `make bench-scale` (issue 13): one rule for rtenc's sessions and ffmpeg's processes.

One UDP socket per stream on 127.0.0.1 (RTP on BASE + 2i, its RTCP port BASE + 2i + 1 bound and never read, as a
peer that ignores RTCP), read with epoll. Every RTP packet's arrival time is the kernel's (SO_TIMESTAMPNS, taken when
loopback hands the packet over), so it does not depend on when this process gets the CPU. A frame is the packets of
one RTP timestamp; it arrives with its last packet.

The rule, the same for every sender: the judged window opens `--warmup` seconds after every stream delivered its
first packet and lasts `--seconds`. Per stream, a frame's schedule is its RTP time mapped to wall time with the
stream's best offset over the window (the smallest arrival − RTP time of any of its frames: the stream's moment least
behind); a frame is late when it arrives more than one frame period after its schedule. A frame is missing when its
RTP timestamp, between the stream's first and last judged frames, never arrived complete (a packet of it lost, or the
sender skipped it). A stream keeps real time with ≤ 1 % of its frames late and none missing.

Usage: scale_receiver.py --streams N --port-base P [--seconds 6] [--warmup 1] [--fps 30] [--timeout 120]
       prints "ready" once every port is bound, then one JSON line (see `judge`) when the window has ended.
       scale_receiver.py --self-test   checks `judge` against a table of cases.
"""
import argparse
import json
import select
import socket
import struct
import sys
import time

# socket.SO_TIMESTAMPNS is missing from Python's socket module; Linux's asm-generic value (x86-64, arm64).
SO_TIMESTAMPNS = 35
SO_RXQ_OVFL = 40  # the socket's count of datagrams the kernel dropped for want of buffer, on every message
RTP_CLOCK = 90_000
# As much as net.core.rmem_max allows (4 MiB here; the kernel counts ~2 KiB per loopback datagram): seconds of an
# 800 kb/s stream, so nothing is lost while this process waits for the CPU.
RECEIVE_BUFFER = 4 << 20


def unwrap(value, previous, modulus):
    """`value` (mod `modulus`) as the integer nearest `previous`: RTP timestamps and sequence numbers wrap."""
    if previous is None:
        return value
    delta = (value - previous) % modulus
    if delta >= modulus // 2:
        delta -= modulus
    return previous + delta


class Stream:
    """One stream's packets, grouped into frames by RTP timestamp as they arrive."""

    def __init__(self):
        self.frames = {}  # unwrapped RTP timestamp -> [last arrival (s), packets, marker seen, first seq, last seq]
        self.first_arrival = None
        self.last_seq = None
        self.last_timestamp = None
        self.packets = 0
        self.duplicates = 0
        self.seen = set()
        self.socket_drops = 0

    def add(self, arrival, seq, timestamp, marker):
        seq = unwrap(seq, self.last_seq, 1 << 16)
        timestamp = unwrap(timestamp, self.last_timestamp, 1 << 32)
        self.last_seq, self.last_timestamp = seq, timestamp
        if seq in self.seen:
            self.duplicates += 1
            return
        self.seen.add(seq)
        self.packets += 1
        if self.first_arrival is None:
            self.first_arrival = arrival
        frame = self.frames.get(timestamp)
        if frame is None:
            self.frames[timestamp] = [arrival, 1, marker, seq, seq]
        else:
            frame[0] = max(frame[0], arrival)
            frame[1] += 1
            frame[2] = frame[2] or marker
            frame[3] = min(frame[3], seq)
            frame[4] = max(frame[4], seq)


def judge(streams, window_start, window_end, fps):
    """The verdict over [window_start, window_end] (seconds, the arrival clock). `streams`: a list of dicts
    {timestamp: (last arrival, packets, marker seen, first seq, last seq)}. A frame is judged when its last packet
    arrived inside the window; it is complete when its marker arrived and its sequence numbers run without a gap from
    the one after the previous frame's last (the first judged frame: within itself)."""
    period = 1 / fps
    step = RTP_CLOCK / fps
    result = {"streams": len(streams), "frames": 0, "late_frames": 0, "missing_frames": 0, "worst_lateness_ms": 0.0,
              "streams_late": 0, "streams_missing": 0, "worst_stream_late_fraction": 0.0, "silent_streams": 0}
    for frames in streams:
        previous = None  # (timestamp, last seq) of the frame before
        judged = []  # (timestamp, arrival, complete)
        for timestamp in sorted(frames):
            arrival, packets, marker, first_seq, last_seq = frames[timestamp]
            # A gap in the sequence numbers before this frame is its own loss when it follows the frame before
            # directly; after a hole in the timestamps it may as well be the missing frame's (counted as missing).
            contiguous = last_seq - first_seq + 1 == packets and (
                previous is None or round(timestamp - previous[0]) != round(step)
                or first_seq == previous[1] + 1)
            previous = (timestamp, last_seq)
            if window_start <= arrival <= window_end:
                judged.append((timestamp, arrival, marker and contiguous))
        if not judged:
            result["silent_streams"] += 1
            continue
        complete = [(timestamp, arrival) for timestamp, arrival, ok in judged if ok]
        expected = round((judged[-1][0] - judged[0][0]) / step) + 1
        missing = expected - len(complete)
        offsets = [arrival - timestamp / RTP_CLOCK for timestamp, arrival in complete]
        best = min(offsets) if offsets else 0
        # (1 µs of slack: a frame exactly one period behind is on time, whatever the float rounding)
        late = [offset - best - period for offset in offsets if offset - best > period + 1e-6]
        result["frames"] += len(complete)
        result["late_frames"] += len(late)
        result["missing_frames"] += missing
        result["worst_lateness_ms"] = max(result["worst_lateness_ms"], round(max(late, default=0) * 1000, 1))
        result["streams_late"] += 1 if len(late) > 0.01 * max(1, len(complete)) else 0
        result["streams_missing"] += 1 if missing > 0 else 0
        result["worst_stream_late_fraction"] = max(result["worst_stream_late_fraction"],
                                                   round(len(late) / max(1, len(complete)), 4))
    return result


def kept_real_time(result):
    """Every stream delivered, ≤ 1 % of each stream's frames late, none missing."""
    return (result is not None and result["frames"] > 0 and result["silent_streams"] == 0
            and result["streams_late"] == 0 and result["missing_frames"] == 0)


def receive(streams, port_base, seconds, warmup, fps, timeout):
    sockets = []
    by_fd = {}
    poller = select.epoll()
    try:
        for index in range(streams):
            for offset in (0, 1):
                sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)
                sock.bind(("127.0.0.1", port_base + 2 * index + offset))
                sockets.append(sock)
                if offset == 0:
                    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
                    sock.setsockopt(socket.SOL_SOCKET, SO_RXQ_OVFL, 1)
                    sock.setblocking(False)
                    by_fd[sock.fileno()] = (sock, Stream())
                    poller.register(sock.fileno(), select.EPOLLIN)
    except OSError as error:
        print(f"scale_receiver: binding port {port_base + 2 * len(by_fd)}: {error}", file=sys.stderr)
        sys.exit(2)
    print("ready", flush=True)
    stream_list = [stream for _, stream in by_fd.values()]
    deadline = time.monotonic() + timeout
    # Arrival times are CLOCK_REALTIME (the kernel's stamp); the window is set on the same clock.
    window_start = window_end = None
    cmsg_space = socket.CMSG_SPACE(16) + socket.CMSG_SPACE(4)
    header = struct.Struct("!BBHI")
    while True:
        now = time.time()
        if window_end is None and all(stream.first_arrival is not None for stream in stream_list):
            window_start = max(stream.first_arrival for stream in stream_list) + warmup
            window_end = window_start + seconds
        if window_end is not None and now > window_end + 0.2:
            break
        if time.monotonic() > deadline:
            break
        for fd, _ in poller.poll(0.05):
            sock, stream = by_fd[fd]
            while True:
                try:
                    data, ancillary, _, _ = sock.recvmsg(2048, cmsg_space)
                except BlockingIOError:
                    break
                if len(data) < 12 or data[0] >> 6 != 2:
                    continue
                arrival = time.time()
                for level, kind, value in ancillary:
                    if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(value) >= 16:
                        sec, nsec = struct.unpack_from("qq", value)
                        arrival = sec + nsec / 1e9
                    elif level == socket.SOL_SOCKET and kind == SO_RXQ_OVFL and len(value) >= 4:
                        stream.socket_drops = struct.unpack_from("I", value)[0]
                first, second, seq, timestamp = header.unpack_from(data)
                stream.add(arrival, seq, timestamp, bool(second & 0x80))
    if window_end is None:
        window_start, window_end = 0, 0  # some stream never started: every stream is judged silent
    result = judge([stream.frames for stream in stream_list], window_start, window_end, fps)
    result["window_seconds"] = seconds
    result["duplicates"] = sum(stream.duplicates for stream in stream_list)
    # Datagrams the kernel dropped at this receiver's sockets (full buffers): missing frames that are not the sender's.
    result["socket_drops"] = sum(stream.socket_drops for stream in stream_list)
    # Every frame each stream delivered from its first packet on (what its CPU time was spent on).
    result["frames_received"] = sum(len(stream.frames) for stream in stream_list)
    for sock in sockets:
        sock.close()
    return result


def self_test():
    """`judge` on a table of cases: (name, streams, expected fields)."""
    def frames(*rows):
        # rows: (frame index, arrival in s, packets, marker, first seq) -> the dict `judge` reads
        return {index * 3000: (arrival, packets, marker, first, first + packets - 1)
                for index, arrival, packets, marker, first in rows}

    def steady(count, delays=None, first_seq=0):
        delays = delays or {}
        return frames(*[(i, i / 30 + 0.010 + delays.get(i, 0), 2, True, first_seq + 2 * i) for i in range(count)])

    cases = [
        ("on schedule", [steady(30)], {"frames": 30, "late_frames": 0, "missing_frames": 0}),
        ("constant delay is not lateness", [steady(30, {i: 0.5 for i in range(30)})],
         {"late_frames": 0}),
        ("one frame behind by exactly one period is on time", [steady(30, {7: 1 / 30})], {"late_frames": 0}),
        ("one frame 50 ms behind is late", [steady(30, {7: 0.050})],
         {"late_frames": 1, "worst_lateness_ms": 16.7, "streams_late": 1}),
        ("falling behind: every frame after the first period is late",
         [steady(30, {i: i * 0.004 for i in range(30)})], {"late_frames": 21}),
        ("a skipped frame is missing (the sender numbers on)",
         [frames(*[(i, i / 30, 2, True, 2 * i - (2 if i > 10 else 0)) for i in range(30) if i != 10])],
         {"frames": 29, "missing_frames": 1}),
        ("a frame lost whole is missing once",
         [{k: v for k, v in steady(30).items() if k != 10 * 3000}], {"frames": 29, "missing_frames": 1}),
        ("a lost packet makes its frame missing",
         [frames(*[(i, i / 30, 2, True, 2 * i + (1 if i >= 5 else 0)) for i in range(30)])],
         {"frames": 29, "missing_frames": 1}),
        ("a frame without its marker is missing",
         [frames(*[(i, i / 30, 2, i != 3, 2 * i) for i in range(30)])], {"missing_frames": 1}),
        ("only frames arriving in the window are judged", [steady(30)], {"frames": 15}, (0.0, 0.5)),
        ("a stream with nothing in the window is silent", [steady(30), {}], {"silent_streams": 1}),
        ("streams are judged each against its own best offset",
         [steady(30), steady(30, {i: 2.0 for i in range(30)})], {"frames": 60, "late_frames": 0}),
    ]
    failures = 0
    for case in cases:
        name, streams, expected = case[:3]
        start, end = case[3] if len(case) > 3 else (0.0, 100.0)
        result = judge(streams, start, end, 30)
        for key, value in expected.items():
            if result[key] != value:
                failures += 1
                print(f"scale_receiver self-test: {name}: {key} = {result[key]}, expected {value}", file=sys.stderr)
    # unwrap: sequence numbers and timestamps across their wrap.
    for value, previous, modulus, expected in ((2, 65_534, 1 << 16, 65_538), (65_534, 2, 1 << 16, -2),
                                               (5, None, 1 << 16, 5), (100, 4_294_967_200, 1 << 32, 4_294_967_396)):
        if unwrap(value, previous, modulus) != expected:
            failures += 1
            print(f"scale_receiver self-test: unwrap({value}, {previous}) = {unwrap(value, previous, modulus)}",
                  file=sys.stderr)
    stream = Stream()
    for seq, timestamp in ((65_535, 4_294_964_296), (0, 4_294_964_296), (1, 0), (1, 0)):
        stream.add(1.0, seq, timestamp, True)
    if sorted(stream.frames) != [4_294_964_296, 4_294_967_296] or stream.duplicates != 1:
        failures += 1
        print(f"scale_receiver self-test: wrap: frames {sorted(stream.frames)}, duplicates {stream.duplicates}",
              file=sys.stderr)
    print(f"scale_receiver self-test: {len(cases) + 5} cases, {failures} failures")
    return failures == 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--streams", type=int)
    parser.add_argument("--port-base", type=int)
    parser.add_argument("--seconds", type=float, default=6)
    parser.add_argument("--warmup", type=float, default=1)
    parser.add_argument("--fps", type=float, default=30)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        sys.exit(0 if self_test() else 1)
    if not args.streams or args.streams < 1 or args.port_base is None:
        parser.error("--streams N and --port-base P are required")
    print(json.dumps(receive(args.streams, args.port_base, args.seconds, args.warmup, args.fps, args.timeout)),
          flush=True)


if __name__ == "__main__":
    main()
