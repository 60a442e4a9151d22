#!/usr/bin/env python3
"""Soak: 10 minutes of 720p30 video through `rtenc encode` (faster than real time), sampling the process's RSS.

Reports RSS after the first minute of video (frame 1800) and at the end; the goal (issue 7) is an end RSS within 5 %
of the first-minute RSS, and no frame dropped that the data-rate cap did not require.
Usage: soak.py RTENC_BINARY [--frames 18000] [--size 1280x720]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("rtenc")
    parser.add_argument("--frames", type=int, default=18000)
    parser.add_argument("--size", default="1280x720")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "stats.jsonl")
        command = [args.rtenc, "encode", "--frames", str(args.frames), "--size", args.size, "--quiet",
                   "-o", os.path.join(tmp, "soak.h264"), "--stats-json", stats]
        started = time.monotonic()
        process = subprocess.Popen(command)
        samples = []  # (frames written so far, RSS KiB)
        while process.poll() is None:
            rss = rss_kib(process.pid)
            try:
                with open(stats) as f:
                    frames = sum(1 for _ in f)
            except FileNotFoundError:
                frames = 0
            if rss is not None:
                samples.append((frames, rss))
            time.sleep(0.25)
        elapsed = time.monotonic() - started
        if process.returncode != 0:
            sys.exit(f"rtenc encode failed with status {process.returncode}")
        with open(stats) as f:
            lines = [json.loads(line) for line in f]
    dropped = [l for l in lines if l["dropped"]]
    first_minute = next((rss for frames, rss in samples if frames >= 1800), samples[-1][1])
    end = samples[-1][1]
    peak = max(rss for _, rss in samples)
    print(f"command: {' '.join(command[:6])} …")
    print(f"frames: {len(lines)} in {elapsed:.1f} s ({len(lines) / elapsed:.0f} fps), dropped: {len(dropped)}"
          + (f" ({sorted(set(l.get('drop_reason') for l in dropped))})" if dropped else ""))
    print(f"RSS after the first minute of video: {first_minute / 1024:.1f} MiB; at the end: {end / 1024:.1f} MiB "
          f"({(end - first_minute) / first_minute * 100:+.2f} %); peak {peak / 1024:.1f} MiB")
    within = abs(end - first_minute) <= 0.05 * first_minute
    print(f"goal (end within 5 % of first minute): {'met' if within else 'NOT met'}")


if __name__ == "__main__":
    main()
