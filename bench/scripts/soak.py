#!/usr/bin/env python3
"""Soak (issue 7): 10 minutes of 720p30 video, sampling RSS; three modes.

  encode    `rtenc encode` of 18,000 testsrc frames to a file, faster than real time.
  stream    `rtenc stream --duration 600` in real time (paced RTP, RTCP, the stream loop) to `rtenc receive --decode`
            on loopback: the path an RTC app runs for hours. Both processes are sampled.
  timeline  the same with a looping timeline of four clips (lavfi, made here) as the input (issue 14): a dissolve, a
            star wipe and a push, a reverse clip and a fast one; a loop point every 5.5 s. No frame may be skipped
            late, at the loop points or anywhere (Tests/rtencTests/TimelineResourceTests runs 60 s of it).

Reports RSS after the first minute of video and at the end; the goal is an end RSS within 5 % of the first-minute
RSS, and no frame dropped that the data-rate cap did not require (stream: no frame skipped for lateness either, and
the receiver decodes every frame sent).
Usage: soak.py RTENC_BINARY [--mode encode|stream|timeline] [--seconds 600] [--size 1280x720]
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except FileNotFoundError:
        pass
    return None


def count_lines(path):
    try:
        with open(path) as f:
            return sum(1 for _ in f)
    except FileNotFoundError:
        return 0


def free_port_pair():
    """An even UDP port whose successor is free too (RTP + RTCP)."""
    for _ in range(100):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1] & ~1
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as a, \
                    socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as b:
                a.bind(("127.0.0.1", port))
                b.bind(("127.0.0.1", port + 1))
            return port
        except OSError:
            continue
    sys.exit("no free UDP port pair")


def summarize(name, samples, first_minute_at):
    """samples: (seconds of video so far, RSS KiB). Prints the RSS line; returns whether the goal is met."""
    first_minute = next((rss for at, rss in samples if at >= first_minute_at), samples[-1][1])
    end = samples[-1][1]
    peak = max(rss for _, rss in samples)
    change = (end - first_minute) / first_minute * 100
    print(f"{name}: RSS after the first minute of video {first_minute / 1024:.1f} MiB; at the end {end / 1024:.1f} MiB "
          f"({change:+.2f} %); peak {peak / 1024:.1f} MiB")
    return abs(end - first_minute) <= 0.05 * first_minute


def soak_encode(args, tmp):
    frames = int(args.seconds * 30)
    stats = os.path.join(tmp, "stats.jsonl")
    command = [args.rtenc, "encode", "--frames", str(frames), "--size", args.size, "--quiet",
               "-o", os.path.join(tmp, "soak.h264"), "--stats-json", stats]
    started = time.monotonic()
    process = subprocess.Popen(command)
    samples = []
    while process.poll() is None:
        rss = rss_kib(process.pid)
        if rss is not None:
            samples.append((count_lines(stats) / 30, rss))
        time.sleep(0.25)
    elapsed = time.monotonic() - started
    if process.returncode != 0:
        sys.exit(f"rtenc encode failed with status {process.returncode}")
    with open(stats) as f:
        lines = [json.loads(line) for line in f]
    dropped = [l for l in lines if l["dropped"]]
    print(f"command: {' '.join(command[:6])} …")
    print(f"frames: {len(lines)} in {elapsed:.1f} s ({len(lines) / elapsed:.0f} fps), dropped: {len(dropped)}"
          + (f" ({sorted(set(l.get('drop_reason') for l in dropped))})" if dropped else ""))
    met = summarize("rtenc encode", samples, 60)
    print(f"goal (end within 5 % of first minute): {'met' if met else 'NOT met'}")


# The looping four-clip timeline (shared with Tests/rtencTests/TimelineResourceTests.swift); the canvas takes --size.
TIMELINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "soak-timeline.json")


def make_timeline(args, tmp):
    """Four 2 s clips (GOP 15, so the reverse one is accepted live) and the looping timeline over them."""
    for index, source in enumerate(["testsrc2", "smptehdbars", "mandelbrot", "rgbtestsrc"]):
        subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                        f"{source}=size={args.size}:rate=30", "-frames:v", "60", "-c:v", "libx264", "-preset",
                        "ultrafast", "-g", "15", os.path.join(tmp, f"clip{index}.mp4")], check=True, timeout=120)
    with open(TIMELINE) as f:
        timeline = json.load(f)
    width, height = args.size.split("x")
    timeline["canvas"].update(width=int(width), height=int(height))
    path = os.path.join(tmp, "loop.json")
    with open(path, "w") as f:
        json.dump(timeline, f)
    return path


def soak_stream(args, tmp):
    port = free_port_pair()
    source = ["--size", args.size] if args.mode == "stream" else [make_timeline(args, tmp)]
    stats = os.path.join(tmp, "stream.jsonl")
    receiver_cmd = [args.rtenc, "receive", "--port", str(port), "--bind", "127.0.0.1", "--decode", "--quiet",
                    "--timeout", str(args.seconds + 60)]
    sender_cmd = [args.rtenc, "stream", *source, "--duration", str(args.seconds),
                  "--to", f"127.0.0.1:{port}", "--sdp", os.path.join(tmp, "soak.sdp"), "--start-delay", "1",
                  "--stats-json", stats, "--quiet"]
    receiver = subprocess.Popen(receiver_cmd, stdout=subprocess.PIPE)
    started = time.monotonic()
    sender = subprocess.Popen(sender_cmd, stdout=subprocess.DEVNULL)
    sender_samples, receiver_samples = [], []
    try:
        while sender.poll() is None:
            seconds = count_lines(stats)  # one stats line per second of streaming
            for process, samples in ((sender, sender_samples), (receiver, receiver_samples)):
                rss = rss_kib(process.pid)
                if rss is not None:
                    samples.append((seconds, rss))
            time.sleep(0.5)
            if time.monotonic() - started > args.seconds + 120:
                sender.kill()
                sys.exit("rtenc stream ran 2 minutes over its duration; killed")
        elapsed = time.monotonic() - started
        if sender.returncode != 0:
            sys.exit(f"rtenc stream failed with status {sender.returncode}")
        # The receiver ends at the sender's BYE; bounded in any case.
        out, _ = receiver.communicate(timeout=30)
    finally:
        for process in (sender, receiver):
            if process.poll() is None:
                process.kill()
                process.wait()
    report = json.loads(out.decode().strip().splitlines()[-1])
    with open(stats) as f:
        last = [json.loads(line) for line in f][-1]
    print(f"commands: {' '.join(sender_cmd[1:8])} … | {' '.join(receiver_cmd[1:7])} …")
    print(f"stream: {args.seconds} s of video in {elapsed:.1f} s; keyframes {last['keyframes']}, packets {last['packets']}, "
          f"dropped by the cap {last['dropped']}, skipped late {last['late']}, fraction lost {last['loss']}")
    print(f"receive: frames {report.get('frames')}, decoded {report.get('decoded_frames')}, decode errors "
          f"{report.get('decode_errors')}, packets lost {report.get('packets_lost')}")
    if args.mode == "timeline":
        print(f"timeline: {args.seconds / 5.5:.0f} loop points; frames skipped late: {last['late']} "
              f"(goal 0: {'met' if last['late'] == 0 else 'NOT met'})")
    sender_met = summarize("rtenc stream (sender)", sender_samples, 60)
    receiver_met = summarize("rtenc receive --decode", receiver_samples, 60)
    print(f"goal (end within 5 % of first minute): sender {'met' if sender_met else 'NOT met'}, "
          f"receiver {'met' if receiver_met else 'NOT met'}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("rtenc")
    parser.add_argument("--mode", choices=["encode", "stream", "timeline"], default="encode")
    parser.add_argument("--seconds", type=int, default=600, help="seconds of 30 fps video")
    parser.add_argument("--size", default="1280x720")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        (soak_encode if args.mode == "encode" else soak_stream)(args, tmp)


if __name__ == "__main__":
    main()
