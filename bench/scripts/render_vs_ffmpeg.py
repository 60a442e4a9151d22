#!/usr/bin/env python3
"""`rtenc render` of a 60 s 720p30 timeline against the equivalent ffmpeg filtergraph, same x264 settings (issue 14).

The timeline is examples/render-60s.json: six 11 s clips (the last 10 s) with five 1 s transitions (dissolve, linear
wipe, fade through black, push, dissolve) and one overlay over the whole minute, a picture corner-pinned to a moving
quad (examples/render-60s-track.csv, a key every 10 frames) through a moving soft-edged mask video. Its media is made
here with lavfi sources into the work directory (bench/.build/render/, kept between runs), next to a copy of the
timeline and track.

ffmpeg does the same edit: fps/setpts per clip, `xfade` fade / wipeleft / fadeblack / slideleft / fade (FFmpeg 5.1's
xfade takes 4:4:4, so the graph converts around it, as a user's graph would), the picture scaled to the canvas inside a
4-pixel transparent border and warped by `perspective` (sense=destination, linear, eval=frame, its corners moving on the
same sine as the track), `overlay` onto the sequence, and `maskedmerge` between the sequence and that through the mask
(its chroma planes the mask's 2x2 means: maskedmerge pairs planes one to one). Both encode with libx264 at rtenc's
real-time settings (compare.py's X264_SETTINGS, preset veryfast, tune zerolatency, level 3.1) to an MP4.

Pairs run interleaved (rtenc, ffmpeg, rtenc, ffmpeg …) after the media exist; each run's wall time and peak RSS
(ru_maxrss of the child, os.wait4) and CPU time; the ratios are medians of per-pair ratios. Both outputs are checked
with ffprobe: 1800 frames. Then the live figure: bench's CompositionProbe composes every frame of the same timeline
on one thread, in real time and live (what `rtenc stream` does before the encoder: readers opened on their own
threads a second ahead), and reports per-frame p50/p99/max, CPU and wall, and the frames late for a reader.

    python3 bench/scripts/render_vs_ffmpeg.py --rtenc RTENC --probe COMPOSITIONPROBE [--runs 3] [--update BENCHMARKS.md]
"""
import argparse
import datetime
import json
import math
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from compare import X264_SETTINGS, measure  # noqa: E402  (the same encoder settings and measurement as bench-compare)
from overlay_kernels import update_section  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMELINE = os.path.join(ROOT, "examples", "render-60s.json")
TRACK = os.path.join(ROOT, "examples", "render-60s-track.csv")
FPS, FRAMES = 30, 1800
CLIPS = [  # (file, lavfi source, seconds)
    ("clip0.mp4", "testsrc2=size=1280x720:rate=30", 11),
    ("clip1.mp4", "mandelbrot=size=1280x720:rate=30", 11),
    ("clip2.mp4", "testsrc2=size=1280x720:rate=30,hue=h=120,hflip", 11),
    ("clip3.mp4", "life=size=1280x720:rate=30:mold=10:ratio=0.1:death_color=#C83232:life_color=#00ff00", 11),
    ("clip4.mp4", "smptehdbars=size=1280x720:rate=30,noise=alls=30:allf=t", 11),
    ("clip5.mp4", "cellauto=size=1280x720:rate=30:rule=110", 10),
]
TRANSITIONS = ["fade", "wipeleft", "fadeblack", "slideleft", "fade"]  # xfade's names for the timeline's five
# The track: each corner on its own sine, the same formula ffmpeg's perspective evaluates per frame (`in` − 1 = frame).
BASE = [(300, 120), (980, 160), (940, 600), (340, 560)]  # TL, TR, BR, BL
AMPLITUDE, PERIOD = 40, 150.0


def corner(index, axis, frame):
    phase = round(index * 1.3 + axis * 0.7, 2)
    return BASE[index][axis] + AMPLITUDE * math.sin(2 * math.pi * frame / PERIOD + phase)


def write_track(path):
    """Keys every 10 frames (what a tracker exports at 3 keys/s); rtenc interpolates linearly between them."""
    lines = ["# render-60s: each corner on a sine (bench/scripts/render_vs_ffmpeg.py writes this file)",
             "frame,tl_x,tl_y,tr_x,tr_y,br_x,br_y,bl_x,bl_y"]
    for frame in range(0, FRAMES + 1, 10):
        values = [f"{corner(i, a, frame):.2f}" for i in range(4) for a in range(2)]
        lines.append(",".join([str(frame)] + values))
    with open(path, "w") as file:
        file.write("\n".join(lines) + "\n")


def ffmpeg(*arguments):
    subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + list(arguments), check=True,
                   timeout=1800)


def make_media(work):
    os.makedirs(work, exist_ok=True)
    path = lambda name: os.path.join(work, name)
    encode = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-g", "60", "-pix_fmt", "yuv420p"]
    for name, source, seconds in CLIPS:
        if not os.path.exists(path(name)):
            print(f"making {name}", file=sys.stderr, flush=True)
            ffmpeg("-f", "lavfi", "-i", source, "-t", str(seconds), *encode, path(name + ".partial.mp4"))
            os.rename(path(name + ".partial.mp4"), path(name))
    if not os.path.exists(path("poster.png")):
        ffmpeg("-f", "lavfi", "-i", "testsrc2=size=640x360,hue=h=200", "-frames:v", "1", path("poster.png"))
    if not os.path.exists(path("mask.mp4")):
        # One soft-edged gradient twice the canvas wide (geq once), then a window moving over it every frame.
        ffmpeg("-f", "lavfi", "-i", "nullsrc=size=2560x720,format=gray,geq=lum='clip((abs(X-1280)-200)*2\\,0\\,255)'",
               "-frames:v", "1", path("gradient.png"))
        ffmpeg("-loop", "1", "-framerate", "30", "-i", path("gradient.png"), "-vf",
               "crop=1280:720:x='640+600*sin(n/45)':y=0", "-t", "60", *encode, path("mask.partial.mp4"))
        os.rename(path("mask.partial.mp4"), path("mask.mp4"))
    write_track(TRACK)  # the committed copy is what this writes
    shutil.copy(TIMELINE, path("render-60s.json"))
    shutil.copy(TRACK, path("render-60s-track.csv"))


def ffmpeg_graph():
    parts, durations = [], [seconds for _, _, seconds in CLIPS]
    for index in range(len(CLIPS)):
        parts.append(f"[{index}:v]fps={FPS},setpts=PTS-STARTPTS,format=yuv420p[v{index}]")
    previous, offset = "v0", 0
    for index, transition in enumerate(TRANSITIONS):
        offset += durations[index] - 1
        label = f"x{index + 1}"
        parts.append(f"[{previous}][v{index + 1}]xfade=transition={transition}:duration=1:offset={offset}[{label}]")
        previous = label
    parts.append(f"[{previous}]format=yuv420p,split[s1][s2]")

    def moving(index, axis):
        phase = round(index * 1.3 + axis * 0.7, 2)
        return f"'{BASE[index][axis]}+{AMPLITUDE}*sin(2*PI*(in-1)/{PERIOD}+{phase})'"
    # perspective's corner order: top left, top right, bottom left, bottom right.
    order = [0, 1, 3, 2]
    corners = ":".join(f"x{k}={moving(i, 0)}:y{k}={moving(i, 1)}" for k, i in enumerate(order))
    poster, mask = len(CLIPS), len(CLIPS) + 1
    parts.append(f"[{poster}:v]scale=1272:712,format=yuva420p,pad=1280:720:4:4:color=black@0,"
                 f"perspective={corners}:sense=destination:interpolation=linear:eval=frame[w]")
    parts.append("[s2][w]overlay=format=yuv420:shortest=1[o]")
    parts.append(f"[{mask}:v]format=gray,split[m1][m2];[m2]scale=640:360:flags=area,split[mu][mv];"
                 "[m1][mu][mv]mergeplanes=0x001020:yuv420p[m]")
    parts.append("[s1][o][m]maskedmerge[out]")
    return ";".join(parts)


def commands(work, rtenc, output_rtenc, output_ffmpeg):
    path = lambda name: os.path.join(work, name)
    ours = [rtenc, "render", path("render-60s.json"), "-o", output_rtenc, "--preset", "veryfast"]
    inputs = []
    for name, _, _ in CLIPS:
        inputs += ["-i", path(name)]
    inputs += ["-loop", "1", "-framerate", str(FPS), "-t", "60", "-i", path("poster.png"), "-i", path("mask.mp4")]
    theirs = (["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + inputs
              + ["-filter_complex", ffmpeg_graph(), "-map", "[out]", "-frames:v", str(FRAMES), "-c:v", "libx264",
                 "-preset", "veryfast", "-tune", "zerolatency", "-level", "3.1", "-pix_fmt", "yuv420p"]
              + X264_SETTINGS + [output_ffmpeg])
    return ours, theirs


def frame_count(path):
    result = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                             "stream=nb_read_frames", "-of", "csv=p=0", path], capture_output=True, text=True,
                            check=True)
    return int(result.stdout.strip())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rtenc", required=True)
    parser.add_argument("--probe", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--live-runs", type=int, default=3)
    parser.add_argument("--work", default=os.path.join(ROOT, "bench", ".build", "render"))
    parser.add_argument("--update")
    options = parser.parse_args()
    work = options.work
    make_media(work)
    out_rtenc, out_ffmpeg = os.path.join(work, "out-rtenc.mp4"), os.path.join(work, "out-ffmpeg.mp4")
    ours, theirs = commands(work, options.rtenc, out_rtenc, out_ffmpeg)
    print(" ".join(ours), file=sys.stderr)
    print(" ".join(theirs), file=sys.stderr)
    pairs = []
    for run in range(options.runs):
        ours_run, theirs_run = measure(ours, work), measure(theirs, work)
        pairs.append((ours_run, theirs_run))
        print(f"pair {run + 1}: rtenc {ours_run[0]:.2f} s {ours_run[1] / 1024:.1f} MiB cpu {ours_run[2]:.2f} s; "
              f"ffmpeg {theirs_run[0]:.2f} s {theirs_run[1] / 1024:.1f} MiB cpu {theirs_run[2]:.2f} s",
              file=sys.stderr, flush=True)
    counts = (frame_count(out_rtenc), frame_count(out_ffmpeg))
    if counts != (FRAMES, FRAMES):
        sys.exit(f"frame counts {counts}, expected {FRAMES} each")
    live = []
    for _ in range(options.live_runs):
        result = subprocess.run([options.probe, "timeline", os.path.join(work, "render-60s.json")],
                                capture_output=True, text=True, check=True, timeout=900)
        live.append(json.loads(result.stdout))
        print(result.stdout.strip(), file=sys.stderr, flush=True)

    median = lambda values: statistics.median(values)
    wall = (median([p[0][0] for p in pairs]), median([p[1][0] for p in pairs]))
    rss = (median([p[0][1] for p in pairs]) / 1024, median([p[1][1] for p in pairs]) / 1024)
    cpu = (median([p[0][2] for p in pairs]), median([p[1][2] for p in pairs]))
    wall_ratio = median([p[0][0] / p[1][0] for p in pairs])
    rss_ratio = median([p[0][1] / p[1][1] for p in pairs])
    cpu_ratio = median([p[0][2] / p[1][2] for p in pairs])
    live_p99_cpu = median([run["cpu_p99_ms"] for run in live])
    live_p99_wall = median([run["wall_p99_ms"] for run in live])
    live_p50_cpu = median([run["cpu_p50_ms"] for run in live])
    live_max_wall = median([run["wall_max_ms"] for run in live])
    live_late = max(run.get("late_frames", 0) for run in live)
    load = os.getloadavg()[0]
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    verdict = lambda ratio, goal: f"≤ {goal}× — {'met' if ratio <= goal else 'NOT met'}"
    lines = [
        f"Generated {stamp} by `make bench-render` on {os.cpu_count()} CPUs (load average {load:.1f} at the end); "
        f"{options.runs} interleaved pairs, {options.live_runs} live runs; {FRAMES} frames of 1280x720 at {FPS} fps "
        f"each; both outputs {FRAMES} frames (ffprobe).", "",
        "| figure | rtenc | ffmpeg | ratio | goal |", "| --- | ---: | ---: | ---: | --- |",
        f"| render wall time | {wall[0]:.2f} s | {wall[1]:.2f} s | {wall_ratio:.2f}× | {verdict(wall_ratio, 0.6)} |",
        f"| render peak RSS | {rss[0]:.1f} MiB | {rss[1]:.1f} MiB | {rss_ratio:.2f}× | {verdict(rss_ratio, 0.8)} |",
        f"| render CPU time (user + system) | {cpu[0]:.2f} s | {cpu[1]:.2f} s | {cpu_ratio:.2f}× | – |",
        f"| live composition per frame, p99 (CPU / wall) | {live_p99_cpu:.2f} / {live_p99_wall:.2f} ms | | | "
        f"≤ 5 ms — {'met' if live_p99_wall <= 5 else ('met in CPU time' if live_p99_cpu <= 5 else 'NOT met')} |",
        f"| live composition per frame, p50 CPU; worst frame wall | {live_p50_cpu:.2f} ms; {live_max_wall:.2f} ms "
        f"| | | – |",
        f"| live frames late for a reader (most in one run) | {live_late} | | | 0 |",
    ]
    table = "\n".join(lines)
    print(table)
    if options.update:
        update_section(options.update, "render", table)


if __name__ == "__main__":
    main()
