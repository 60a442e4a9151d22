#!/usr/bin/env python3
"""Scale (issue 6): how many 640x360 30 fps sessions (libx264 ultrafast, one thread each, paced RTP to loopback)
one process keeps in real time on this machine. Runs bench's ScaleProbe for growing session counts and reports the
largest count that kept up: no dropped frame and at most 1 % of the workers' rounds finishing after their 33 ms
frame period. Usage: scale.py SCALEPROBE [--update BENCHMARKS.md] [--counts 30,45,60,75,90,105] [--seconds 6]
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import tempfile


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("probe")
    parser.add_argument("--counts", default="30,45,60,75,90,105")
    parser.add_argument("--seconds", default="6")
    parser.add_argument("--update")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        y4m = os.path.join(tmp, "testsrc2-640x360.y4m")
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                        "testsrc2=size=640x360:rate=30", "-frames:v", "60", "-pix_fmt", "yuv420p", y4m], check=True)
        rows = []
        for count in [int(c) for c in args.counts.split(",")]:
            run = subprocess.run([args.probe, y4m, "--sessions", str(count), "--seconds", args.seconds],
                                 capture_output=True, text=True, timeout=300)
            if run.returncode != 0:
                rows.append((count, None, run.stderr.strip().splitlines()[-1:] or ["failed"]))
                continue
            rows.append((count, json.loads(run.stdout.strip().splitlines()[-1]), None))
    kept_up = [c for c, r, _ in rows if r and r["dropped"] == 0 and r["late_rounds"] <= 0.01 * r["rounds"]]
    best = max(kept_up) if kept_up else 0
    lines = [
        "<!-- scale:begin -->",
        "## Scale: 640x360 30 fps sessions in one process",
        "",
        f"Command: `make bench-scale` (`python3 bench/scripts/scale.py …/ScaleProbe`), "
        f"{datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores. Each session: its own "
        "EncoderSession (libx264 ultrafast, 1 thread, WebRTC's real-time configuration at 800 kb/s) and RTPSender "
        "(paced, to loopback), fed testsrc2 frames held in memory; two worker threads drive them on one real-time "
        "clock. A round is one worker encoding and sending a frame of each of its sessions; it is late when it ends "
        "after the 33 ms frame period.",
        "",
        "| sessions | frames | late rounds | worst lateness | dropped | RSS per session |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for count, result, error in rows:
        if result is None:
            lines.append(f"| {count} | failed: {error[0]} | | | | |")
        else:
            lines.append(f"| {count} | {result['frames']} | {result['late_rounds']} of {result['rounds']} | "
                         f"{result['worst_lateness_ms']} ms | {result['dropped']} | {result['rss_per_session_mib']} MiB |")
    lines += ["", f"Largest count kept in real time (no drop, ≤ 1 % late rounds): **{best}** (goal ≥ 90; anchor: "
              "8 ffmpeg processes encoded 3,137 frames/s of testsrc2 at this size, a codec-only ceiling of ~104).",
              "<!-- scale:end -->"]
    text = "\n".join(lines)
    print(text)
    if args.update:
        with open(args.update) as f:
            document = f.read()
        if "<!-- scale:begin -->" in document:
            document = re.sub(r"<!-- scale:begin -->.*?<!-- scale:end -->", lambda _: text, document, flags=re.S)
        else:
            document = document.rstrip("\n") + "\n\n" + text + "\n"
        with open(args.update, "w") as f:
            f.write(document)


if __name__ == "__main__":
    main()
