#!/usr/bin/env python3
"""Scale (issue 6): how many 640x360 30 fps sessions (libx264 ultrafast, one thread each, paced RTP to loopback)
one process keeps in real time on this machine. Runs bench's ScaleProbe for growing session counts and reports the
largest count that kept up: no dropped frame and at most 1 % of the workers' rounds finishing after their 33 ms
frame period. Then the throughput behind it, every frame as fast as it goes (--flat-out), measured the same way for
x264 alone: ffmpeg processes, and ScaleProbe without RTP (EncoderSession + x264) and with it, at a few session
counts, so the cost of our part and the cost of x264 at many sessions per process are told apart.
The anchor, in the same run: how many `ffmpeg -re … -c:v libx264 … -f rtp` processes (one per stream, same size,
preset, threads and rate) the machine keeps in real time; the figure is the ratio of the two counts.
Usage: scale.py SCALEPROBE [--update BENCHMARKS.md] [--counts 30,45,60,75,90,105] [--seconds 6] [--workers 2]
       [--io shared|own] [--repeat 90] [--ffmpeg-counts 15,30,45,60,75] [--autogroup-nice N]
"""
import argparse
import datetime
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time


def load():
    return os.getloadavg()[0]


def probe(args, y4m, count, *extra, seconds=None):
    command = [args.probe, y4m, "--sessions", str(count), "--seconds", str(seconds or args.seconds), *extra]
    if args.autogroup_nice is not None:
        # Linux groups CPU time by session (autogroup) before it looks at nice values: a process started elsewhere
        # at nice 19 (a background fuzzer) still gets its session's full share. A new session whose autogroup nice
        # is raised gives the probe what a machine running only it would: opt-in, and printed with the results.
        command = ["setsid", "sh", "-c", f'echo {args.autogroup_nice} > /proc/self/autogroup && exec "$@"', "_", *command]
    # The peer's ports may be taken by other work on a shared machine: then the next block of ports.
    for port_base in (48000, 52000, 56000):
        run = subprocess.run(command + ["--port-base", str(port_base)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, timeout=300)
        if run.returncode == 0 and run.stdout.strip():
            return json.loads(run.stdout.strip().splitlines()[-1])
        print(f"ScaleProbe --sessions {count} failed: {run.stderr.strip()[-300:]}", file=sys.stderr)
        if "binding the peer's ports" not in run.stderr:
            return None
    return None


def ffmpeg_throughput(args, y4m, processes, frames):
    """`processes` ffmpeg libx264 encoders at once, WebRTC-like settings: frames/s and CPU ms per frame. With
    --autogroup-nice all of them share one new autogroup, as the probe's sessions share one."""
    command = ["ffmpeg", "-nostdin", "-v", "error", "-stream_loop", "-1", "-i", y4m, "-frames:v", str(frames),
               "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-threads", "1",
               "-profile:v", "baseline", "-b:v", "800k", "-maxrate", "1200k", "-bufsize", "1200k",
               "-x264-params", "scenecut=0", "-f", "null", "-"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    if args.autogroup_nice is None:
        running = [subprocess.Popen(command) for _ in range(processes)]
        for process in running:
            process.wait()
    else:
        script = f'echo {args.autogroup_nice} > /proc/self/autogroup; for i in $(seq {processes}); do "$@" & done; wait'
        subprocess.run(["setsid", "sh", "-c", script, "_", *command], check=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return processes * frames / wall, cpu * 1000 / (processes * frames)


def ffmpeg_realtime(args, y4m, processes, port_base=49000):
    """The like-for-like anchor: `processes` ffmpeg processes, one per stream, each reading the same 640x360 input in
    real time (-re), encoding it with libx264 as the probe's sessions do (ultrafast, zerolatency, one thread,
    constrained baseline, 800 kb/s) and sending RTP to a loopback port that is bound and never read (the probe's
    peer). Each reports its progress every 0.1 s (-progress, frame count); a sample is late when the process is
    more than two frame periods (66 ms: one for the probe's deadline, one for the reports' whole-frame granularity)
    further behind its schedule than at its best moment of the run (the schedule's origin: -re paces from the
    process's own start); lateness is reported beyond the first period, as the probe's is. Measured for `args.seconds` after every process has
    started and one more second has passed (ScaleProbe opens every session before its clock starts, so start-up is
    outside its measurement too). Returns a dict like ScaleProbe's, or None when a process failed."""
    import selectors
    import socket
    seconds = float(args.seconds)
    sinks = []
    for index in range(processes):
        for offset in (0, 1):  # RTP and the RTCP port above it, as ffmpeg's rtp muxer uses both
            sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sink.bind(("127.0.0.1", port_base + 2 * index + offset))
            sinks.append(sink)
    command = lambda index: [
        "ffmpeg", "-nostdin", "-v", "error", "-nostats", "-progress", "pipe:1", "-stats_period", "0.1",
        "-re", "-stream_loop", "-1", "-i", y4m,
        "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-threads", "1",
        "-profile:v", "baseline", "-b:v", "800k", "-maxrate", "1200k", "-bufsize", "1200k",
        "-x264-params", "scenecut=0", "-f", "rtp", f"rtp://127.0.0.1:{port_base + 2 * index}"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    running = [subprocess.Popen(command(i), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
               for i in range(processes)]
    selector = selectors.DefaultSelector()
    pending = {}
    for index, process in enumerate(running):
        os.set_blocking(process.stdout.fileno(), False)
        selector.register(process.stdout, selectors.EVENT_READ, index)
        pending[index] = b""
    samples = {index: [] for index in range(processes)}  # (wall, frame)
    started = set()
    window_start = None
    deadline = time.monotonic() + 120
    failed = False
    while time.monotonic() < deadline:
        now = time.monotonic()
        if window_start is None and len(started) == processes:
            window_start = now + 1.0
        if window_start is not None and now >= window_start + seconds:
            break
        for key, _ in selector.select(timeout=0.05):
            index = key.data
            chunk = os.read(key.fileobj.fileno(), 65536)
            if not chunk:
                selector.unregister(key.fileobj)
                failed = True
                continue
            pending[index] += chunk
            *lines, pending[index] = pending[index].split(b"\n")
            for line in lines:
                if line.startswith(b"frame="):
                    frame = int(line[6:])
                    if frame > 0:
                        started.add(index)
                    if window_start is not None and now >= window_start:
                        samples[index].append((now, frame))
        if failed:
            break
    for process in running:
        process.terminate()
    for process in running:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    for sink in sinks:
        sink.close()
    if failed or window_start is None:
        return None
    late = total = 0
    worst = 0.0
    frames = 0
    frames_in_all = 0  # from each process's start: what its CPU time was spent on
    for index, rows in samples.items():
        if len(rows) < 2:
            return None
        frames += rows[-1][1] - rows[0][1]
        frames_in_all += rows[-1][1]
        behind = [wall - frame / 30 for wall, frame in rows]
        best = min(behind)
        for value in behind:
            total += 1
            # Reports come every 0.1 s and count whole frames, so a process on schedule already reads up to one
            # frame period behind its best moment: late is more than that, plus the probe's one frame period.
            if value - best > 2 / 30:
                late += 1
                worst = max(worst, value - best - 1 / 30)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"sessions": processes, "samples": total, "late_samples": late, "worst_lateness_ms": round(worst * 1000, 1),
            "frames": frames, "cpu_ms_per_frame_whole_run": cpu * 1000 / max(1, frames_in_all)}


def ffmpeg_realtime_in_own_autogroup(args, y4m, processes):
    """ffmpeg_realtime, with --autogroup-nice run by a child of this script in one new autogroup at that nice: all
    the ffmpeg processes (and the child reading their reports) share it, as the probe's sessions share one
    process's; a separate autogroup per process would give ffmpeg many times the probe's share of the machine."""
    if args.autogroup_nice is None:
        return ffmpeg_realtime(args, y4m, processes)
    script = f'echo {args.autogroup_nice} > /proc/self/autogroup && exec "$@"'
    run = subprocess.run(["setsid", "sh", "-c", script, "_", sys.executable, os.path.abspath(__file__),
                          "--anchor-child", str(processes), "--seconds", str(args.seconds), "--anchor-input", y4m,
                          "unused-probe"], stdout=subprocess.PIPE, text=True, timeout=600)
    lines = run.stdout.strip().splitlines()
    return json.loads(lines[-1]) if run.returncode == 0 and lines else None


def anchor_kept(result):
    """An ffmpeg run kept real time: every process ran, and at most 1 % of the reports were late."""
    return result is not None and result["late_samples"] <= 0.01 * result["samples"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("probe")
    parser.add_argument("--counts", default="30,45,60,75,90,105")
    parser.add_argument("--seconds", default="6")
    # One thread per session, as an RTC app runs its encoders (libwebrtc: a task queue per video stream's encoder,
    # one network thread shared by all), sources on independent phases (--stagger), senders on one shared loop.
    # `--workers 2 --no-stagger --io own` is how this benchmark ran first: two workers in lockstep rounds.
    parser.add_argument("--workers", default="per-session", help="worker threads, or per-session")
    parser.add_argument("--io", default="shared")
    parser.add_argument("--repeat", default="90", help="session counts run twice (noisy machine)")
    parser.add_argument("--stagger", action=argparse.BooleanOptionalAction, default=True,
                        help="workers' frames fall due on different phases of the frame period")
    parser.add_argument("--autogroup-nice", type=int, help="run each probe in its own autogroup at this nice")
    parser.add_argument("--ffmpeg-counts", default="15,30,45,60,75",
                        help="process counts for the ffmpeg anchor (stops after two counts in a row fail)")
    parser.add_argument("--update")
    # Internal: the child that runs one anchor measurement in its own autogroup (ffmpeg_realtime_in_own_autogroup).
    parser.add_argument("--anchor-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--anchor-input", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.anchor_child is not None:
        args.autogroup_nice = None
        print(json.dumps(ffmpeg_realtime(args, args.anchor_input, args.anchor_child)))
        return
    repeat = {int(c) for c in args.repeat.split(",") if c}
    rows = []
    throughput = []
    with tempfile.TemporaryDirectory() as tmp:
        y4m = os.path.join(tmp, "testsrc2-640x360.y4m")
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                        "testsrc2=size=640x360:rate=30", "-frames:v", "60", "-pix_fmt", "yuv420p", y4m], check=True)
        for count in [int(c) for c in args.counts.split(",")]:
            for _ in range(2 if count in repeat else 1):
                before = load()
                extra = ["--stagger"] if args.stagger else []
                workers = str(count) if args.workers == "per-session" else args.workers
                result = probe(args, y4m, count, "--workers", workers, "--io", args.io, *extra)
                rows.append((count, result, before))
        # The anchor, in the same run: how many ffmpeg processes (one stream each) keep real time.
        anchor = []
        failures_in_a_row = 0
        for count in [int(c) for c in args.ffmpeg_counts.split(",") if c]:
            before = load()
            result = ffmpeg_realtime_in_own_autogroup(args, y4m, count)
            anchor.append((count, result, before))
            failures_in_a_row = 0 if anchor_kept(result) else failures_in_a_row + 1
            if failures_in_a_row == 2:
                break
        # Throughput, every frame as fast as it goes: x264 alone (ffmpeg processes; EncoderSession without RTP) and
        # the whole pipeline, at a few session counts (about 3,000 frames each).
        fps, cpu = ffmpeg_throughput(args, y4m, 8, 400)
        throughput.append(("ffmpeg -c:v libx264, 8 processes (the anchor)", 8, fps, cpu, load()))
        for count in (8, 90):
            for label, extra in (("ScaleProbe --encode-only (EncoderSession + x264)", ["--encode-only"]),
                                 ("ScaleProbe, --io own --no-peer (as measured before: closed ports answer with ICMP)",
                                  ["--io", "own", "--no-peer"]),
                                 ("ScaleProbe, --io shared (encode + packetize + paced send)", ["--io", "shared"]),
                                 ("ScaleProbe, --io own (a thread per RTPSender)", ["--io", "own"])):
                result = probe(args, y4m, count, "--flat-out", *extra, seconds=round(3000 / count / 30, 2))
                if result:
                    throughput.append((label, count, result["frames_per_second"], result["cpu_ms_per_frame"], load()))
    kept_up = [c for c, r, _ in rows if r and r["dropped"] == 0 and r["late_rounds"] <= 0.01 * r["rounds"]]
    failed = {c for c, r, _ in rows if not (r and r["dropped"] == 0 and r["late_rounds"] <= 0.01 * r["rounds"])}
    # A count counts as kept when every run of it kept up, and so did every smaller count.
    best = 0
    for count in sorted({c for c, _, _ in rows}):
        if count in failed:
            break
        best = count
    anchor_best = 0
    for count, result, _ in anchor:
        if not anchor_kept(result):
            break
        anchor_best = count
    lines = [
        "<!-- scale:begin -->",
        "## Scale: 640x360 30 fps sessions in one process",
        "",
        f"Command: `make bench-scale` (`python3 bench/scripts/scale.py …/ScaleProbe`), "
        f"{datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores. Each session: its own "
        "EncoderSession (libx264 ultrafast, 1 thread, WebRTC's real-time configuration at 800 kb/s) and RTPSender "
        f"(paced, to a loopback peer that does not read), fed testsrc2 frames held in memory; "
        + ("one thread per session drives it" if args.workers == "per-session" else f"{args.workers} worker threads drive them")
        + (", each on its own phase of the frame period" if args.stagger else ", all frames due at the same instant")
        + ", on one real-time clock; "
        + ("all senders share one `RTPSenderIOLoop` thread. " if args.io == "shared" else "each sender has its own I/O thread. ")
        + "A round is one worker encoding and sending a frame of each of its sessions (with a thread per session: one "
        "frame); it is late when it ends after the 33 ms frame period. CPU is the process's user + system time per frame while running; load is the "
        "1-minute load average before the run (other work on the machine)."
        + (f" Each run in its own autogroup at nice {args.autogroup_nice} (`--autogroup-nice`): the machine's other "
           "tenants (helpers' builds, a fuzzer) get correspondingly less." if args.autogroup_nice is not None else ""),
        "",
        "| sessions | frames | late rounds | worst lateness | dropped | RSS per session | threads | CPU per frame | load |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for count, result, before in rows:
        if result is None:
            lines.append(f"| {count} | failed | | | | | | | {before:.1f} |")
        else:
            lines.append(f"| {count} | {result['frames']} | {result['late_rounds']} of {result['rounds']} | "
                         f"{result['worst_lateness_ms']} ms | {result['dropped']} | {result['rss_per_session_mib']} MiB | "
                         f"{result['threads']} | {result['cpu_ms_per_frame']} ms | {before:.1f} |")
    lines += ["", f"Largest count kept in real time (no drop, ≤ 1 % late rounds, in every run of it and of every "
              f"smaller count): **{best}**.", "",
              "The anchor, measured in the same run: `ffmpeg -re -stream_loop -1 -i testsrc2-640x360.y4m -c:v libx264 "
              "-preset ultrafast -tune zerolatency -threads 1 -profile:v baseline -b:v 800k -maxrate 1200k -bufsize "
              "1200k -x264-params scenecut=0 -f rtp rtp://127.0.0.1:PORT`, one process per stream, all started at "
              "once, each sending to its own bound port nobody reads. Each reports its frame count every 0.1 s "
              "(`-progress pipe:1 -stats_period 0.1`); a report is late when the process is more than two frame "
              "periods further behind its real-time schedule than at its best moment of the run (one for the probe's "
              "deadline, one because reports count whole frames: on schedule they already wander by one). Measured for the same "
              f"{args.seconds} s, from one second after the last process started (start-up is outside the probe's "
              "measurement too). CPU per frame: the processes' user + system time over every frame they encoded, start-up "
              "included.", "",
              "| ffmpeg processes | frames | late reports | worst lateness | CPU per frame | load |",
              "| ---: | ---: | ---: | ---: | ---: | ---: |"]
    for count, result, before in anchor:
        if result is None:
            lines.append(f"| {count} | failed | | | | {before:.1f} |")
        else:
            lines.append(f"| {count} | {result['frames']} | {result['late_samples']} of {result['samples']} | "
                         f"{result['worst_lateness_ms']} ms | {result['cpu_ms_per_frame_whole_run']:.3f} ms | "
                         f"{before:.1f} |")
    ratio = f"{best / anchor_best:.2f}×" if anchor_best else "n/a (ffmpeg kept none)"
    lines += ["", f"Largest count of ffmpeg processes kept in real time (≤ 1 % late reports, in every count up to it): "
              f"**{anchor_best}**. rtenc sessions per process ÷ ffmpeg processes: **{ratio}** (goal ≥ 1.3×).", "",
              "Throughput behind it, every frame as fast as it goes (`--flat-out`, two workers), the same content and settings:", "",
              "| what | sessions | frames/s | CPU per frame | frames/s ÷ 30 | load |",
              "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for label, count, fps, cpu, after in throughput:
        lines.append(f"| {label} | {count} | {fps:.0f} | {cpu:.3f} ms | {fps / 30:.0f} | {after:.1f} |")
    lines.append("<!-- scale:end -->")
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
