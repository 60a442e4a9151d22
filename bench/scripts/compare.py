#!/usr/bin/env python3
"""Whole-process comparisons of rtenc against ffmpeg on identical inputs, in the same run.

Every pair runs interleaved (one warm-up pair, then A B A B …) so both sides see the same machine noise; the
figure that counts is the median of the per-pair ratios (rtenc / ffmpeg) of wall time and of peak RSS (ru_maxrss of
the child, from os.wait4). Inputs are made once with ffmpeg's lavfi (testsrc2) under the work directory.

Usage: compare.py --rtenc PATH [--runs 5] [--frames 300] [--work DIR] [--update BENCHMARKS.md] [--only NAME ...]
Python 3 standard library only.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import time

# rtenc's real-time configuration at its CLI defaults (2 Mb/s, cap 1.5 × per 1 s, constrained baseline, 2 threads),
# as close as ffmpeg's CLI gets (Sources/EncoderSession/LibAVCodecBackend.swift, RateController.swift):
#   VBV as the session's steady state: maxrate = 0.85 × 3 Mb/s = 2.55 Mb/s, bufsize = (3 − 2.55) Mb/s × 1 s = 450 kbit;
#   keyint 1 << 30 (the session places IDRs itself), scenecut=0, bf 0, forced-idr, tune zerolatency, threads 2,
#   profile baseline (x264's name for constrained baseline here), level = the lowest Table A-1 level for the size at
#   30 fps and 3 Mb/s (3.1 for 720p, 4 for 1080p).
# Differences left: the session opens x264's ABR at 8 × the target and steers the VBV maxrate per frame towards
# 2 Mb/s (a reconfig between frames; for the first 0.5 s maxrate 2 Mb/s with a 0.2 Mb buffer); ffmpeg gets a plain
# ABR of 2 Mb/s with the steady VBV. Opening ffmpeg at 16 Mb/s like the session instead made it spend 2.5 Mb/s (23%
# more bytes than rtenc), so the plain ABR is the fairer match: both then write ~2 Mb/s (see the size check below).
X264_SETTINGS = ["-b:v", "2M", "-maxrate", "2.55M", "-bufsize", "450k", "-g", str(1 << 30), "-bf", "0",
                 "-x264-params", "scenecut=0", "-forced-idr", "1", "-threads", "2", "-profile:v", "baseline"]
LEVELS = {"720p": "3.1", "1080p": "4"}
# The X265Backend's own settings (Sources/EncoderSession/X265Backend.swift) for `rtenc encode --codec hevc` to an
# Annex-B file, at the same rate and VBV as the H.264 pairs: zerolatency, one frame thread, no x265-placed IDR.
X265_SETTINGS = ["-b:v", "2M", "-maxrate", "2.55M", "-bufsize", "450k", "-forced-idr", "1", "-profile:v", "main"]
X265_PARAMS = "keyint=-1:scenecut=0:open-gop=0:info=0:log-level=error:pools=2:frame-threads=1:repeat-headers=1:high-tier=0"
SIZES = {"720p": "1280x720", "1080p": "1920x1080"}
PORT = 47004  # RTP goes here, RTCP to PORT + 1; the script binds both and never reads (the kernel drops the excess)
UNBOUND_PORT = 47014  # and this pair is left unbound: the "nobody listening" send pair


def log(message):
    print(message, file=sys.stderr, flush=True)


def run_quiet(command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def measure(command, cwd):
    """Runs `command` once; returns (wall seconds, peak RSS in KiB, CPU seconds). Fails loudly on a non-zero exit."""
    # stderr goes to a file, not a pipe: a chatty child must never block on a full pipe while being timed.
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=errors)
        # wait4 gives this child's own rusage (ru_maxrss in KiB on Linux).
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            errors.seek(0)
            raise SystemExit(f"failed ({process.returncode}): {shlex.join(command)}\n"
                             f"{errors.read().decode(errors='replace')}")
    return wall, usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def make_inputs(work, frames):
    """The lavfi inputs (made once; delete the work directory to remake them)."""
    inputs = {}
    for name, size in SIZES.items():
        path = os.path.join(work, f"testsrc2-{name}-{frames}.y4m")
        if not os.path.exists(path):
            log(f"making {path}")
            run_quiet(["ffmpeg", "-hide_banner", "-y", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate=30",
                       "-frames:v", str(frames), "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", path + ".partial"])
            os.rename(path + ".partial", path)
        inputs[name] = path
    # 60 s of 720p30 at 2 Mb/s (x264 ultrafast zerolatency, as rtenc streams it) for send and annexb: long enough
    # that the work, not process start-up, dominates.
    h264 = os.path.join(work, "x264-720p30-60s.h264")
    mp4 = os.path.join(work, "x264-720p30-60s.mp4")
    if not os.path.exists(h264):
        log(f"making {h264}")
        run_quiet(["ffmpeg", "-hide_banner", "-y", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30",
                   "-frames:v", "1800", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast",
                   "-tune", "zerolatency", "-b:v", "2M", "-maxrate", "2.55M", "-bufsize", "450k", "-g", "7200",
                   "-threads", "2", "-f", "h264", h264 + ".partial"])
        os.rename(h264 + ".partial", h264)
    if not os.path.exists(mp4):
        run_quiet(["ffmpeg", "-hide_banner", "-y", "-r", "30", "-i", h264, "-c", "copy", "-f", "mp4", mp4 + ".partial"])
        os.rename(mp4 + ".partial", mp4)
    inputs["h264"], inputs["mp4"] = h264, mp4
    return inputs


def pairs(rtenc, inputs, work):
    """(name, goal as (wall, rss) upper bounds on the ratio or None, rtenc command, ffmpeg command, outputs)."""
    out = lambda name: os.path.join(work, name)
    ffmpeg = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y"]
    # Both binaries load ~150–200 shared libraries before doing anything; this pair measures that floor so the short
    # pairs can also be read net of it.
    result = [("start-up (rtenc --help, ffmpeg -version)", None, [rtenc, "--help"], ["ffmpeg", "-hide_banner", "-version"],
               None)]
    for size in ("720p", "1080p"):
        for preset in ("ultrafast", "veryfast"):
            ours, theirs = out(f"rtenc-{size}-{preset}.h264"), out(f"ffmpeg-{size}-{preset}.h264")
            result.append((
                f"encode {size} {preset}", (0.95, 0.8),
                [rtenc, "encode", inputs[size], "-o", ours, "--preset", preset, "--encoder", "software", "--quiet"],
                ffmpeg + ["-i", inputs[size], "-c:v", "libx264", "-preset", preset, "-tune", "zerolatency",
                          "-level:v", LEVELS[size]] + X264_SETTINGS + ["-f", "h264", theirs],
                (ours, theirs)))
    for preset in ("ultrafast", "veryfast"):
        ours, theirs = out(f"rtenc-720p-{preset}.h265"), out(f"ffmpeg-720p-{preset}.h265")
        result.append((
            f"hevc encode 720p {preset}", (0.95, 0.8),
            [rtenc, "encode", inputs["720p"], "-o", ours, "--codec", "hevc", "--preset", preset, "--encoder", "software",
             "--quiet"],
            ffmpeg + ["-i", inputs["720p"], "-c:v", "libx265", "-preset", preset, "-tune", "zerolatency"]
            + X265_SETTINGS + ["-x265-params", f"{X265_PARAMS}:level-idc={LEVELS['720p']}", "-f", "hevc", theirs],
            (ours, theirs)))
    result.append((
        "send 720p 60 s unpaced", (0.5, None),
        [rtenc, "send", inputs["h264"], "--no-pacing", "--to", f"127.0.0.1:{PORT}", "--sdp", out("send.sdp"),
         "--quiet"],
        ffmpeg + ["-i", inputs["h264"], "-c", "copy", "-f", "rtp", f"rtp://127.0.0.1:{PORT}"],
        None))
    # The same work without the BYE linger: rtenc waits `--bye-delay` (0.5 s) after its last packet before RTCP BYE
    # for a receiver that may still be reading (the sink above is bound, so it may be); ffmpeg sends BYE at once.
    # With --bye-delay 0 both end alike, so this pair compares the sending itself — the goal.
    result.append((
        "send 720p 60 s unpaced, BYE at once", (0.35, None),
        [rtenc, "send", inputs["h264"], "--no-pacing", "--to", f"127.0.0.1:{PORT}", "--sdp", out("send.sdp"),
         "--quiet", "--bye-delay", "0"],
        ffmpeg + ["-i", inputs["h264"], "-c", "copy", "-f", "rtp", f"rtp://127.0.0.1:{PORT}"],
        None))
    # Nobody listens on UNBOUND_PORT: every datagram comes back as ICMP port unreachable (rtenc's connected socket
    # sees them, counts them, and skips the BYE linger; ffmpeg's unconnected one ignores them).
    result.append((
        "send 720p 60 s unpaced, nobody listening", None,
        [rtenc, "send", inputs["h264"], "--no-pacing", "--to", f"127.0.0.1:{UNBOUND_PORT}", "--sdp", out("send.sdp"),
         "--quiet"],
        ffmpeg + ["-i", inputs["h264"], "-c", "copy", "-f", "rtp", f"rtp://127.0.0.1:{UNBOUND_PORT}"],
        None))
    result.append((
        "annexb 720p 60 s", (1.0, None),
        [rtenc, "annexb", inputs["mp4"], "-o", out("rtenc-annexb.h264")],
        ffmpeg + ["-i", inputs["mp4"], "-c", "copy", "-bsf:v", "h264_mp4toannexb", "-f", "h264",
                  out("ffmpeg-annexb.h264")],
        None))
    return result


def probe(path):
    """profile, level, frame count and size of an H.264 elementary stream (checks that both sides did the same)."""
    text = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                           "stream=profile,level,nb_read_frames", "-of", "json", path],
                          check=True, capture_output=True, text=True).stdout
    stream = json.loads(text)["streams"][0]
    return (f"{stream.get('profile')} L{stream.get('level', 0) / 10:g}, {stream.get('nb_read_frames')} frames, "
            f"{os.path.getsize(path) // 1024} KiB")


def compare(name, ours, theirs, runs, work):
    log(f"{name}: warm-up")
    measure(ours, work), measure(theirs, work)
    samples = []
    for index in range(runs):
        a, b = measure(ours, work), measure(theirs, work)
        samples.append((a, b))
        log(f"{name}: run {index + 1}/{runs}: rtenc {a[0]:.3f} s (CPU {a[2]:.3f} s) {a[1] // 1024} MiB, "
            f"ffmpeg {b[0]:.3f} s (CPU {b[2]:.3f} s) {b[1] // 1024} MiB")
    return samples


def summarize(samples):
    median = statistics.median
    return {
        "rtenc_s": median(a[0] for a, _ in samples),
        "ffmpeg_s": median(b[0] for _, b in samples),
        "wall_ratio": median(a[0] / b[0] for a, b in samples),
        "wall_ratio_range": (min(a[0] / b[0] for a, b in samples), max(a[0] / b[0] for a, b in samples)),
        "rtenc_rss_mib": median(a[1] for a, _ in samples) / 1024,
        "ffmpeg_rss_mib": median(b[1] for _, b in samples) / 1024,
        "rss_ratio": median(a[1] / b[1] for a, b in samples),
        # CPU time (user + sys of the child and its threads) moves less than wall time when other jobs share the
        # cores; it says nothing about parallelism, so it complements the wall ratio rather than replacing it.
        "cpu_ratio": median(a[2] / b[2] for a, b in samples),
    }


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def session_overhead(rtenc, inputs, work, runs):
    """Per-frame session overhead and encode time at 720p ultrafast, from `rtenc encode --stats-json`."""
    rows = []
    for index in range(runs):
        stats = os.path.join(work, f"stats-{index}.jsonl")
        run_quiet([rtenc, "encode", inputs["720p"], "-o", os.path.join(work, "stats.h264"), "--preset",
                   "ultrafast", "--encoder", "software", "--quiet", "--stats-json", stats])
        with open(stats) as lines:
            rows += [json.loads(line) for line in lines]
    if not rows or "overhead_us" not in rows[0]:
        return None
    overhead = [row["overhead_us"] for row in rows]
    encode = [row["encode_us"] for row in rows]
    return {"frames": len(rows), "runs": runs,
            "overhead_p50": percentile(overhead, 0.5), "overhead_p99": percentile(overhead, 0.99),
            "overhead_max": max(overhead),
            "encode_p50": percentile(encode, 0.5), "encode_p99": percentile(encode, 0.99)}


def latency(probe_binary, inputs, frames):
    """Runs bench's LatencyProbe (720p30 real time, 20 s) paced and unpaced; one JSON summary each."""
    results = []
    for extra in ([], ["--unpaced"]):
        text = subprocess.run([probe_binary, inputs["720p"], "--frames", str(frames)] + extra, check=True,
                              capture_output=True, text=True).stdout
        results.append(json.loads(text.strip().splitlines()[-1]))
    return results


def latency_lines(results, frames):
    lines = ["", f"Latency, 720p30 real time, libx264 veryfast (the `stream` default), 2 Mb/s, {frames} frames "
                 f"(testsrc2 looped): from `EncoderSession.encode()` to the frame's last RTP packet (marker) arriving "
                 f"on a loopback socket in the same process (`bench/Sources/LatencyProbe`). µs, p50 / p99 / max.", "",
             "| pacing | total | codec (avcodec send/receive) | ours (total − codec) | of which session overhead | "
             "of which after encode() (packetize, queue, pacer, sendmmsg, loopback) |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    shown = lambda p: f"{p['p50']:.0f} / {p['p99']:.0f} / {p['max']:.0f}"
    for result in results:
        pacing = "paced 2.5 × 2 Mb/s (`stream` default)" if result["paced"] else "unpaced"
        lines.append(f"| {pacing} | {shown(result['total_us'])} | {shown(result['codec_us'])} | "
                     f"{shown(result['ours_us'])} | {shown(result['session_overhead_us'])} | "
                     f"{shown(result['after_encode_us'])} |")
    return lines


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as info:
            model = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} × {model}, {memory:.0f} GiB, {platform.system()} {platform.release()}"


def verdict(ratio, bound):
    """Judged on the ratio as shown (two decimals), so a row never reads "0.95× … NOT met"."""
    if bound is None:
        return "–"
    return f"≤ {bound}× — {'met' if round(ratio, 2) <= bound else 'NOT met'}"


def report(results, checks, overhead, arguments, commands, latencies=None):
    lines = [f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC on {machine()}; "
             f"{arguments.runs} interleaved pairs after one warm-up pair, {arguments.frames} frames per encode "
             f"input. Command: `{arguments.command_line}`.",
             "",
             "| pair | median rtenc | median ffmpeg | wall ratio (median, range) | wall goal | CPU ratio | "
             "peak RSS rtenc / ffmpeg | RSS ratio | RSS goal |",
             "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- |"]
    startup = next((summary for name, _, summary in results if name.startswith("start-up")), None)
    for name, goal, summary in results:
        wall_goal, rss_goal = goal if goal else (None, None)
        low, high = summary["wall_ratio_range"]
        net = ""
        if startup and not name.startswith(("start-up", "encode")):
            # Medians net of the start-up pair's medians: what the work itself costs each side (derived, not a
            # measured ratio: read it as an estimate).
            ours, theirs = summary["rtenc_s"] - startup["rtenc_s"], summary["ffmpeg_s"] - startup["ffmpeg_s"]
            if theirs > 0:
                net = f"; net of start-up ≈ {ours / theirs:.2f}×"
        net_rss = ""
        if startup and not name.startswith("start-up"):
            # Both processes map ~45 MiB of shared libraries before any work; the rest is what the work holds.
            ours = summary["rtenc_rss_mib"] - startup["rtenc_rss_mib"]
            theirs = summary["ffmpeg_rss_mib"] - startup["ffmpeg_rss_mib"]
            if theirs > 0:
                net_rss = f"; above start-up {ours:.1f} / {theirs:.1f} MiB ≈ {ours / theirs:.2f}×"
        lines.append(
            f"| {name} | {summary['rtenc_s']:.3f} s | {summary['ffmpeg_s']:.3f} s | "
            f"{summary['wall_ratio']:.2f}× ({low:.2f}–{high:.2f}){net} | {verdict(summary['wall_ratio'], wall_goal)} | "
            f"{summary['cpu_ratio']:.2f}× | "
            f"{summary['rtenc_rss_mib']:.1f} / {summary['ffmpeg_rss_mib']:.1f} MiB | {summary['rss_ratio']:.2f}×{net_rss} | "
            f"{verdict(summary['rss_ratio'], rss_goal)} |")
    if checks:
        lines += ["", "Outputs of the encode pairs (ffprobe; same settings should give the same profile, level and "
                      "frame count):", ""]
        lines += [f"- {name}: rtenc {ours}; ffmpeg {theirs}" for name, (ours, theirs) in checks]
    if overhead:
        lines += ["", f"Per-frame session overhead (time in `EncoderSession.encode` outside avcodec_send_frame / "
                      f"avcodec_receive_packet), 720p ultrafast, {overhead['frames']} frames over {overhead['runs']} "
                      f"runs of `rtenc encode … --stats-json`: p50 {overhead['overhead_p50']} µs, "
                      f"p99 {overhead['overhead_p99']} µs, max {overhead['overhead_max']} µs "
                      f"(goal p99 ≤ 500 µs — {'met' if overhead['overhead_p99'] <= 500 else 'NOT met'}). "
                      f"Whole encode call: p50 {overhead['encode_p50']} µs, p99 {overhead['encode_p99']} µs."]
    if latencies:
        lines += latency_lines(latencies, arguments.latency_frames)
    lines += ["", "Commands of each pair (paths relative to the work directory):", ""]
    for name, ours, theirs in commands:
        lines += [f"- {name}:", f"  - `{ours}`", f"  - `{theirs}`"]
    return "\n".join(lines)


def update(path, section, name="compare"):
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    with open(path) as file:
        text = file.read()
    block = f"{begin}\n{section}\n{end}"
    if begin in text and end in text:
        text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    with open(path, "w") as file:
        file.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rtenc", required=True, help="the rtenc binary (a release build)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--work", default="bench/.build/compare")
    parser.add_argument("--update", help="rewrite the compare section of this markdown file")
    parser.add_argument("--section", default="compare",
                        help="the markers to write between (<!-- NAME:begin --> … <!-- NAME:end -->)")
    parser.add_argument("--only", nargs="*", help="pair name prefixes to run (e.g. 'encode 720p' send)")
    parser.add_argument("--overhead-runs", type=int, default=3)
    parser.add_argument("--latency-probe", help="bench's LatencyProbe binary: also measure per-frame latency")
    parser.add_argument("--latency-frames", type=int, default=600)
    arguments = parser.parse_args()
    # Paths under the current directory are shown relative to it, so the recorded command reads the same on any clone.
    here = os.getcwd() + os.sep
    arguments.command_line = "python3 bench/scripts/compare.py " + shlex.join(
        part.replace(here, "") for part in sys.argv[1:])
    rtenc = os.path.abspath(arguments.rtenc)
    os.makedirs(arguments.work, exist_ok=True)
    work = os.path.abspath(arguments.work)
    inputs = make_inputs(work, arguments.frames)

    # Bound and never read: packets to these ports are dropped by the kernel once the buffer is full, and no ICMP
    # "port unreachable" comes back to either sender. UNBOUND_PORT stays unbound for the "nobody listening" pair.
    sinks = []
    for port in (PORT, PORT + 1):
        sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sink.bind(("127.0.0.1", port))
        sinks.append(sink)

    results, checks, commands = [], [], []
    for name, goal, ours, theirs, outputs in pairs(rtenc, inputs, work):
        if arguments.only and not any(name.startswith(prefix) for prefix in arguments.only):
            continue
        samples = compare(name, ours, theirs, arguments.runs, work)
        results.append((name, goal, summarize(samples)))
        if outputs:
            checks.append((name, (probe(outputs[0]), probe(outputs[1]))))
        shown = lambda command: shlex.join(os.path.relpath(part, work) if part.startswith(work) else
                                           ("rtenc" if part == rtenc else part) for part in command)
        commands.append((name, shown(ours), shown(theirs)))
    overhead = None
    if not arguments.only or any("overhead".startswith(prefix) for prefix in arguments.only):
        overhead = session_overhead(rtenc, inputs, work, arguments.overhead_runs)
    latencies = None
    if arguments.latency_probe and (not arguments.only or any("latency".startswith(p) for p in arguments.only)):
        log("latency probe: 2 × 20 s real time")
        latencies = latency(os.path.abspath(arguments.latency_probe), inputs, arguments.latency_frames)
    section = report(results, checks, overhead, arguments, commands, latencies)
    print(section)
    if arguments.update:
        update(arguments.update, section, arguments.section)


if __name__ == "__main__":
    main()
