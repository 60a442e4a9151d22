#!/usr/bin/env python3
"""Scale (issue 6, issue 13): how many 640x360 30 fps sessions (libx264 ultrafast, one thread each, paced RTP to
loopback) one process keeps in real time on this machine. Runs bench's ScaleProbe for growing session counts, each
run sending to a receiver (scale_receiver.py: a socket per stream, kernel arrival times) that judges every stream by
one rule — a frame is late when its last packet arrives more than one frame period after its schedule, a stream keeps
real time with ≤ 1 % late frames and none missing — and reports the largest count at which every stream kept real
time, in every run of it and of every smaller count. Then the throughput behind it, every frame as fast as it goes (--flat-out), measured the same way for
x264 alone: ffmpeg processes, and ScaleProbe without RTP (EncoderSession + x264) and with it, at a few session
counts, so the cost of our part and the cost of x264 at many sessions per process are told apart.
The anchor, in the same run: how many `ffmpeg -re … -c:v libx264 … -f rtp` processes (one per stream, same size,
preset, threads and rate) the machine keeps in real time, judged by the same receiver and rule; the figure is the
ratio of the two counts.
Usage: scale.py SCALEPROBE [--update BENCHMARKS.md] [--counts 30,45,60,75,90,105] [--seconds 6]
       [--schedules edf/3,per-session] [--io shared|own] [--repeat 90]
       [--ffmpeg-counts 15,30,45,60,75] [--autogroup-nice N]
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

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts from the import below
from scale_receiver import kept_real_time  # noqa: E402


def load():
    return os.getloadavg()[0]


RECEIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scale_receiver.py")
PORT_BASES = (48000, 52000, 56000)  # the receiver's ports may be taken by other work on a shared machine
WARMUP = 1.0  # seconds from the last stream's first packet to the judged window (start-up is not judged)


def parse_schedule(text):
    """"edf/3" -> ("edf/3", "edf", 3); "per-session" -> ("per-session", "share", None): a thread per session."""
    if text == "per-session":
        return text, "share", None
    mode, _, workers = text.partition("/")
    if mode not in ("edf", "share") or not workers.isdigit() or int(workers) < 1:
        raise SystemExit(f"scale.py: --schedules: {text!r} is not edf/N, share/N or per-session")
    return text, mode, int(workers)


def describe_schedule(label):
    _, mode, workers = parse_schedule(label)
    if workers is None:
        return "a thread per session"
    if mode == "edf":
        return f"a pool of {workers} threads, each taking the frame due soonest (`ScaleProbe --schedule edf`)"
    return f"{workers} threads, each running a share of the sessions in rounds"


def in_autogroup(args, command):
    """`command` in a new session whose autogroup nice is --autogroup-nice, when given. Linux groups CPU time by
    session (autogroup) before it looks at nice values: a process started elsewhere at nice 19 (a background fuzzer)
    still gets its session's full share. A new session whose autogroup nice is raised gives the measured sender what
    a machine running only it would: opt-in, and printed with the results."""
    if args.autogroup_nice is None:
        return command
    return ["setsid", "sh", "-c", f'echo {args.autogroup_nice} > /proc/self/autogroup && exec "$@"', "_", *command]


def start_receiver(args, streams, timeout):
    """scale_receiver.py bound to `streams` streams' ports (the first block of PORT_BASES that is free): (process,
    port base), or (None, None). Its arrival times are the kernel's, so its own share of the CPU does not move them;
    with --autogroup-nice it runs in an autogroup of its own at that nice (for the probe and the anchor alike), so
    the other tenants do not starve it until its sockets overflow."""
    for port_base in PORT_BASES:
        receiver = subprocess.Popen(in_autogroup(args, [sys.executable, RECEIVER, "--streams", str(streams), "--port-base", str(port_base), "--seconds",
             str(args.seconds), "--warmup", str(WARMUP), "--timeout", str(timeout)]),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if receiver.stdout.readline().strip() == "ready":
            return receiver, port_base
        receiver.wait()
        print(f"scale_receiver at {port_base}: {receiver.stderr.read().strip()[-300:]}", file=sys.stderr)
    return None, None


def receiver_verdict(receiver):
    """The receiver's JSON line once its window has ended (or its timeout), or None."""
    try:
        out, err = receiver.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        receiver.kill()
        receiver.communicate()
        return None
    lines = out.strip().splitlines()
    if receiver.returncode != 0 or not lines:
        print(f"scale_receiver failed: {err.strip()[-300:]}", file=sys.stderr)
        return None
    return json.loads(lines[-1])


def probe(args, y4m, count, *extra, seconds=None):
    """One flat-out ScaleProbe run (throughput; nobody judges lateness), its JSON line or None."""
    command = in_autogroup(args, [args.probe, y4m, "--sessions", str(count), "--seconds", str(seconds or args.seconds),
                                  *extra])
    for port_base in PORT_BASES:
        run = subprocess.run(command + ["--port-base", str(port_base)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, timeout=300)
        if run.returncode == 0 and run.stdout.strip():
            return json.loads(run.stdout.strip().splitlines()[-1])
        print(f"ScaleProbe --sessions {count} failed: {run.stderr.strip()[-300:]}", file=sys.stderr)
        if "binding the peer's ports" not in run.stderr:
            return None
    return None


def probe_judged(args, y4m, count, *extra):
    """One real-time ScaleProbe run sending to the receiver: the probe's JSON line with the receiver's verdict under
    "receiver", or None. The probe runs the warm-up, the judged window and one more second (its sessions' last
    frames must still be on their way when the window closes)."""
    receiver, port_base = start_receiver(args, count, timeout=120)
    if receiver is None:
        return None
    seconds = float(args.seconds) + WARMUP + 1
    run = subprocess.run(in_autogroup(args, [args.probe, y4m, "--sessions", str(count), "--seconds", str(seconds),
                                             "--external-peer", "--port-base", str(port_base), *extra]),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    if run.returncode != 0:
        receiver.kill()  # it would otherwise wait out its timeout for streams that never come
    verdict = receiver_verdict(receiver)
    if run.returncode != 0 or not run.stdout.strip():
        print(f"ScaleProbe --sessions {count} failed: {run.stderr.strip()[-300:]}", file=sys.stderr)
        return None
    result = json.loads(run.stdout.strip().splitlines()[-1])
    result["receiver"] = verdict
    return result


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


def ffmpeg_command(y4m, port):
    """The like-for-like anchor's process: one stream read in real time (-re), encoded with libx264 as the probe's
    sessions are (ultrafast, zerolatency, one thread, constrained baseline, 800 kb/s) and sent as RTP."""
    return ["ffmpeg", "-nostdin", "-v", "error", "-nostats", "-re", "-stream_loop", "-1", "-i", y4m,
            "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-threads", "1",
            "-profile:v", "baseline", "-b:v", "800k", "-maxrate", "1200k", "-bufsize", "1200k",
            "-x264-params", "scenecut=0", "-f", "rtp", f"rtp://127.0.0.1:{port}"]


def run_ffmpegs(y4m, processes, port_base, stop):
    """Starts `processes` anchor processes at once, sending to port_base + 2i, waits for `stop()` to return, stops
    them and returns their CPU seconds (user + system, start-up included), or None when one ended on its own."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    running = [subprocess.Popen(ffmpeg_command(y4m, port_base + 2 * i), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL) for i in range(processes)]
    stop()
    failed = any(process.poll() is not None for process in running)
    for process in running:
        process.terminate()
    for process in running:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if failed:
        return None
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def ffmpeg_realtime(args, y4m, processes):
    """The anchor: `processes` ffmpeg processes, one per stream, all started at once, sending to the receiver, which
    judges them by the probe's rule (its window opens a second after the last process's first packet: start-up is
    outside the probe's measurement too). The processes run in a child of this script (`--anchor-child`) that, with
    --autogroup-nice, sits in one new autogroup at that nice with all of them, as the probe's sessions share one
    process's; a separate autogroup per process would give ffmpeg many times the probe's share of the machine.
    Returns the receiver's verdict with "cpu_ms_per_frame" (the processes' CPU over every frame the receiver got from
    them, start-up included), or None when a process failed."""
    receiver, port_base = start_receiver(args, processes, timeout=120)
    if receiver is None:
        return None
    child = subprocess.Popen(
        in_autogroup(args, [sys.executable, os.path.abspath(__file__), "--anchor-child", str(processes),
                            "--anchor-port-base", str(port_base), "--anchor-input", y4m, "unused-probe"]),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    verdict = receiver_verdict(receiver)
    out, _ = child.communicate("stop\n", timeout=120)
    lines = out.strip().splitlines()
    cpu = json.loads(lines[-1]) if child.returncode == 0 and lines else None
    if verdict is None or cpu is None:
        return None
    verdict["cpu_ms_per_frame"] = cpu * 1000 / max(1, verdict["frames_received"])
    return verdict


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("probe")
    # Steps of 5 where the counts are decided: a step of 15 moved a count by a fifth on one marginal miss (BENCHMARKS,
    # "Scale on a quiet host").
    parser.add_argument("--counts", default="30,45,60,65,70,75,80,85,90,105")
    parser.add_argument("--seconds", default="6")
    # One thread per session, as an RTC app runs its encoders (libwebrtc: a task queue per video stream's encoder,
    # one network thread shared by all), sources on independent phases (--stagger), senders on one shared loop.
    # `--workers 2 --no-stagger --io own` is how this benchmark ran first: two workers in lockstep rounds.
    parser.add_argument("--schedules", default="edf/3,per-session",
                        help="how ScaleProbe's threads drive the sessions, each measured at every count (interleaved), "
                             "the first one's count is the headline: edf/N (a pool of N workers, the frame due soonest "
                             "first), per-session (a thread per session), share/N (N workers, each a share in rounds)")
    parser.add_argument("--io", default="shared")
    parser.add_argument("--repeat", default="75,80,85,90", help="session counts run twice (noisy machine)")
    parser.add_argument("--stagger", action=argparse.BooleanOptionalAction, default=True,
                        help="workers' frames fall due on different phases of the frame period")
    parser.add_argument("--autogroup-nice", type=int, help="run each probe in its own autogroup at this nice")
    parser.add_argument("--ffmpeg-counts", default="15,30,45,55,60,65,70,75",
                        help="process counts for the ffmpeg anchor (stops after two counts in a row fail)")
    parser.add_argument("--throughput", action=argparse.BooleanOptionalAction, default=True,
                        help="the flat-out throughput table (ffmpeg and ScaleProbe at 8 and 90 sessions)")
    parser.add_argument("--update")
    # Internal: the child that runs one anchor measurement in its own autogroup (ffmpeg_realtime_in_own_autogroup).
    parser.add_argument("--anchor-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--anchor-input", help=argparse.SUPPRESS)
    parser.add_argument("--anchor-port-base", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.anchor_child is not None:
        print(json.dumps(run_ffmpegs(args.anchor_input, args.anchor_child, args.anchor_port_base, sys.stdin.readline)))
        return
    repeat = {int(c) for c in args.repeat.split(",") if c}
    schedules = [parse_schedule(text) for text in args.schedules.split(",") if text]
    rows = []
    throughput = []
    with tempfile.TemporaryDirectory() as tmp:
        y4m = os.path.join(tmp, "testsrc2-640x360.y4m")
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                        "testsrc2=size=640x360:rate=30", "-frames:v", "60", "-pix_fmt", "yuv420p", y4m], check=True)
        for count in [int(c) for c in args.counts.split(",")]:
            for _ in range(2 if count in repeat else 1):
                for label, mode, workers in schedules:
                    before = load()
                    extra = ["--stagger"] if args.stagger else []
                    result = probe_judged(args, y4m, count, "--workers", str(workers or count), "--schedule", mode,
                                          "--io", args.io, *extra)
                    rows.append((label, count, result, before))
        # The anchor, in the same run: how many ffmpeg processes (one stream each) keep real time.
        anchor = []
        failures_in_a_row = 0
        for count in [int(c) for c in args.ffmpeg_counts.split(",") if c]:
            before = load()
            result = ffmpeg_realtime(args, y4m, count)
            anchor.append((count, result, before))
            failures_in_a_row = 0 if kept_real_time(result) else failures_in_a_row + 1
            if failures_in_a_row == 2:
                break
        # Throughput, every frame as fast as it goes: x264 alone (ffmpeg processes; EncoderSession without RTP) and
        # the whole pipeline, at a few session counts (about 3,000 frames each).
        if args.throughput:
            fps, cpu = ffmpeg_throughput(args, y4m, 8, 400)
            throughput.append(("ffmpeg -c:v libx264, 8 processes (the anchor)", 8, fps, cpu, load()))
        for count in (8, 90) if args.throughput else ():
            for label, extra in (("ScaleProbe --encode-only (EncoderSession + x264)", ["--encode-only"]),
                                 ("ScaleProbe, --io own --no-peer (as measured before: closed ports answer with ICMP)",
                                  ["--io", "own", "--no-peer"]),
                                 ("ScaleProbe, --io shared (encode + packetize + paced send)", ["--io", "shared"]),
                                 ("ScaleProbe, --io own (a thread per RTPSender)", ["--io", "own"])):
                result = probe(args, y4m, count, "--flat-out", *extra, seconds=round(3000 / count / 30, 2))
                if result:
                    throughput.append((label, count, result["frames_per_second"], result["cpu_ms_per_frame"], load()))
    # A count counts as kept when every run of it kept real time, and so did every smaller count.
    kept = {}
    for label, _, _ in schedules:
        mine = [(c, r) for l, c, r, _ in rows if l == label]
        failed = {c for c, r in mine if not (r and kept_real_time(r["receiver"]))}
        kept[label] = 0
        for count in sorted({c for c, _ in mine}):
            if count in failed:
                break
            kept[label] = count
    best = kept[schedules[0][0]]
    anchor_best = 0
    for count, result, _ in anchor:
        if not kept_real_time(result):
            break
        anchor_best = count
    cores = os.cpu_count()

    def cpu_use(cpu_ms_per_frame, streams):
        return f"{cpu_ms_per_frame * 30 * streams / 10 / cores:.0f} %"

    def verdict_cells(verdict, missing_note=""):
        """The receiver's columns: frames judged, late frames, missing, worst lateness, streams over 1 % late."""
        if verdict is None:
            return "receiver failed | | | | "
        if verdict.get("socket_drops"):
            missing_note += f" (receiver's sockets dropped {verdict['socket_drops']} packets)"
        return (f"{verdict['frames']} | {verdict['late_frames']} | {verdict['missing_frames']}{missing_note} | "
                f"{verdict['worst_lateness_ms']} ms | {verdict['streams_late']} of {verdict['streams']}")

    schedule = "; ".join(f"`{label}`: {describe_schedule(label)}" for label, _, _ in schedules)
    lines = [
        "<!-- scale:begin -->",
        "## Scale: 640x360 30 fps sessions in one process",
        "",
        f"Command: `make bench-scale` (`python3 bench/scripts/scale.py …/ScaleProbe`"
        + (f" with `{' '.join(sys.argv[2:])}`" if len(sys.argv) > 2 else "") + "), "
        f"{datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC, {cores} cores. Each session: its own "
        "CompressionSession (libx264 ultrafast, 1 thread, WebRTC's real-time configuration at 800 kb/s) and RTPSender "
        "(paced at 2.5× the rate, to the receiver on loopback), fed testsrc2 frames held in memory, "
        + ("each session on its own phase of the frame period" if args.stagger else "all frames due at the same instant")
        + ", on one real-time clock, driven by the schedules of the first column (" + schedule + "); "
        + ("all senders share one `RTPSenderIOLoop` thread. " if args.io == "shared" else "each sender has its own I/O thread. ")
        + "**One rule for rtenc and ffmpeg, from the receiving side** (`bench/scripts/scale_receiver.py`): a socket "
        "per stream, each packet's arrival stamped by the kernel (SO_TIMESTAMPNS); the judged window opens "
        f"{WARMUP:g} s after the last stream's first packet and lasts {args.seconds} s; per stream, a frame's schedule is its RTP "
        "time mapped to wall time with the stream's best offset over the window, and the frame is late when its last "
        "packet arrives more than one frame period after it; missing when its RTP timestamp never arrived complete. "
        "A count is kept in real time when every stream has ≤ 1 % late frames and none missing, in every run of it "
        "and of every smaller count. \"Late rounds\" is the probe's own view, as judged before (a worker's round "
        "— with a thread per session or the pool: one frame — ending after its 33 ms period). CPU is the process's "
        "user + system time per frame while running; CPU use is that × 30 fps × sessions over the cores; load is the "
        "1-minute load average before the run (other work on the machine)."
        + (f" Each sender in its own autogroup at nice {args.autogroup_nice} (`--autogroup-nice`): the machine's other "
           "tenants (helpers' builds, a fuzzer) get correspondingly less." if args.autogroup_nice is not None else ""),
        "",
        "| schedule | sessions | frames judged | late frames | missing | worst lateness | streams > 1 % late "
        "| late rounds (probe) | CPU per frame | CPU use | RSS per session | threads | load |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label, count, result, before in rows:
        if result is None:
            lines.append(f"| {label} | {count} | failed | | | | | | | | | | {before:.1f} |")
        else:
            # What the sender itself dropped, beside the missing frames: frames the encoder skipped, packets a full
            # pacer queue refused.
            note = (f" (encoder {result['dropped']}, queue {result['packets_dropped']})"
                    if result["dropped"] or result["packets_dropped"] else "")
            cells = verdict_cells(result["receiver"], note)
            lines.append(f"| {label} | {count} | {cells} | {result['late_rounds']} of "
                         f"{result['rounds']} | {result['cpu_ms_per_frame']} ms | "
                         f"{cpu_use(result['cpu_ms_per_frame'], count)} | {result['rss_per_session_mib']} MiB | "
                         f"{result['threads']} | {before:.1f} |")
    lines += ["", "Largest count kept in real time (every stream ≤ 1 % late frames, none missing, in every run of it "
              "and of every smaller count): " + ", ".join(f"`{label}` **{kept[label]}**" for label, _, _ in schedules)
              + ".", "",
              "The anchor, measured in the same run and judged by the same receiver and rule: `ffmpeg -re -stream_loop "
              "-1 -i testsrc2-640x360.y4m -c:v libx264 -preset ultrafast -tune zerolatency -threads 1 -profile:v "
              "baseline -b:v 800k -maxrate 1200k -bufsize 1200k -x264-params scenecut=0 -f rtp rtp://127.0.0.1:PORT`, "
              "one process per stream, all started at once. CPU per frame: the processes' user + system time over "
              "every frame the receiver got from them, start-up included.", "",
              "| ffmpeg processes | frames judged | late frames | missing | worst lateness | streams > 1 % late "
              "| CPU per frame | CPU use | load |",
              "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for count, result, before in anchor:
        if result is None:
            lines.append(f"| {count} | failed | | | | | | | {before:.1f} |")
        else:
            lines.append(f"| {count} | {verdict_cells(result)} | {result['cpu_ms_per_frame']:.3f} ms | "
                         f"{cpu_use(result['cpu_ms_per_frame'], count)} | {before:.1f} |")
    ratio = f"{best / anchor_best:.2f}×" if anchor_best else "n/a (ffmpeg kept none)"
    lines += ["", f"Largest count of ffmpeg processes kept in real time (the same rule, in every count up to it): "
              f"**{anchor_best}**. rtenc sessions per process (`{schedules[0][0]}`) ÷ ffmpeg processes: **{ratio}** "
              "(goal ≥ 1.3×).", "",
              ]
    if throughput:
        lines += ["Throughput behind it, every frame as fast as it goes (`--flat-out`, two workers), the same content "
                  "and settings:", "",
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
