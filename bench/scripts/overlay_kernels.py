#!/usr/bin/env python3
"""The overlay kernels at 720p and 1080p against ffmpeg's filters doing the same, in the same run (issue 14).

Both sides are measured in CPU time (the probe's thread CPU time; ffmpeg's utime + stime), so a loaded machine does not
decide the ratio. rtenc: bench's CompositionProbe composes a colour sequence (nothing decoded per frame) under one overlay through the
public API and times the frames after the first (the pictures are opened and converted once): the alpha overlay of
a 640x480 yuva420p sticker, a full-frame overlay through a full-frame gray mask, and a corner pin of a 720p picture
onto a quad covering most of the frame (warp + blend), its corners moving every frame or static (the picture is
sampled every frame either way). ffmpeg: `overlay`, `maskedmerge` and `perspective`
(sense=destination, linear) on one thread over 150 frames of a Y4M base in page cache, each minus a baseline run of
the same graph with the filter switched off (`enable=0`: the same inputs read and synchronised, the frame passed
through untouched), so decoding, framesync and process start-up are not counted against ffmpeg. 1080p scales every
size and position by 1.5. Runs are interleaved; medians of --runs. rtenc's baseline is the same composition without
the overlay (the colour frame copied into the output).

    python3 bench/scripts/overlay_kernels.py PROBE [--runs 5] [--update BENCHMARKS.md]
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

FRAMES = 150
FFMPEG = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error"]
ONE_THREAD = ["-threads", "1", "-filter_threads", "1", "-filter_complex_threads", "1"]
CORNERS = [40, 20, 1240, 60, 1200, 700, 80, 680]  # TL, TR, BR, BL: the probe's quad at frame 0 …
LAST_CORNERS = [70, 35, 1255, 30, 1170, 690, 50, 700]  # … moving linearly to this one at frame 149


# Frame-sized blocks stay in the heap (glibc's largest mmap threshold, no trimming): otherwise glibc maps and unmaps
# some of them from the kernel and every new mapping page-faults in zeroed pages, and how many depends on the order in
# which a graph frees its frames — ffmpeg's enable=0 baselines took ~8 000 more page faults per 150 frames than the
# runs they are subtracted from (maskedmerge at 720p: 35 000 against 27 000, ~0.04 ms a frame of kernel time), which
# made the filter look cheaper than its own loop (perf: ff_maskedmerge8_sse2 alone 0.21 ms a frame, run − baseline
# 0.10). With these settings run and baseline fault alike (~21 000) and run − baseline matches the perf figure.
# Both sides run with them (the probe allocates nothing per frame either way).
ENVIRONMENT = dict(os.environ, GLIBC_TUNABLES="glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296")


def run(arguments, timeout=300):
    return subprocess.run(arguments, check=True, capture_output=True, text=True, timeout=timeout, env=ENVIRONMENT)


SIZES = {"720p": (1280, 720), "1080p": (1920, 1080)}


def make_media(directory, width, height):
    def ffmpeg(*arguments):
        run(FFMPEG + ["-y"] + list(arguments))
    path = lambda name: os.path.join(directory, name)
    scale = width / 1280
    ffmpeg("-f", "lavfi", "-i", f"testsrc2=size={width}x{height}:rate=30", "-frames:v", str(FRAMES), "-pix_fmt",
           "yuv420p", path("base.y4m"))
    ffmpeg("-f", "lavfi", "-i", f"testsrc2=size={int(640 * scale)}x{int(480 * scale)},format=yuva420p,"
           "geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='128+127*sin(X/20)'", "-frames:v", "1", "-c:v", "rawvideo",
           path("sticker.nut"))
    ffmpeg("-f", "lavfi", "-i", f"testsrc2=size={width}x{height},hue=h=120", "-frames:v", "1", "-pix_fmt", "yuv420p",
           "-c:v", "rawvideo", path("picture.nut"))
    ffmpeg("-f", "lavfi", "-i", f"nullsrc=size={width}x{height},format=gray,"
           f"geq=lum='clip(X-Y-{int(200 * scale)}\\,0\\,255)'", "-frames:v", "1", "-c:v", "rawvideo", path("mask.nut"))
    # maskedmerge pairs planes one to one: its mask carries the 2x2 means in the chroma planes.
    # maskedmerge needs as many frames in every input (a looped input never lets the baseline run end): the picture
    # and the mask repeated FRAMES times.
    ffmpeg("-i", path("picture.nut"), "-vf", f"loop=loop={FRAMES - 1}:size=1", "-c:v", "rawvideo",
           path("picture150.nut"))
    ffmpeg("-i", path("mask.nut"), "-filter_complex",
           f"[0:v]split[m1][m2];[m2]scale={width // 2}:{height // 2}:flags=area,split[mu][mv];"
           "[m1][mu][mv]mergeplanes=0x001020:yuv420p,"
           f"loop=loop={FRAMES - 1}:size=1", "-c:v", "rawvideo", "-f", "nut", path("mask420.nut"))


def ffmpeg_seconds(inputs, graph):
    """CPU seconds (ffmpeg -benchmark utime + stime) of `graph` over `inputs`, one thread, FRAMES output frames: on
    a machine shared with other work CPU time is what the filter costs, wall time is mostly waiting."""
    # -benchmark prints its "bench: utime=… rtime=…" line at the info level.
    arguments = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "info", "-benchmark"] + ONE_THREAD
    for loop, name in inputs:
        arguments += (["-stream_loop", "-1"] if loop else []) + ["-i", name]
    arguments += ["-filter_complex", graph, "-map", "[out]", "-frames:v", str(FRAMES), "-f", "null", "-"]
    result = subprocess.run(arguments, capture_output=True, text=True, timeout=600, env=ENVIRONMENT)
    if result.returncode != 0:
        sys.exit(f"ffmpeg failed: {' '.join(arguments)}\n{result.stderr[-800:]}")
    match = re.search(r"utime=([0-9.]+)s stime=([0-9.]+)s", result.stdout + result.stderr)
    return float(match.group(1)) + float(match.group(2))


def cases(directory, width):
    path = lambda name: os.path.join(directory, name)
    scale = width / 1280
    corners = [c * scale for c in CORNERS]
    last_corners = [c * scale for c in LAST_CORNERS]
    perspective = (f"perspective=x0={corners[0]}:y0={corners[1]}:x1={corners[2]}:y1={corners[3]}:"
                   f"x2={corners[6]}:y2={corners[7]}:x3={corners[4]}:y3={corners[5]}:sense=destination:"
                   "interpolation=linear")
    # Tracked corners move every frame: perspective must then evaluate its corners per frame (eval=frame), which
    # rebuilds its per-pixel map each frame; with eval=init (static corners) the map is built once.
    def moving(index):
        return f"'{corners[index]}+({last_corners[index] - corners[index]})*(in-1)/149'"
    moving_perspective = (f"perspective=x0={moving(0)}:y0={moving(1)}:x1={moving(2)}:y1={moving(3)}:"
                          f"x2={moving(6)}:y2={moving(7)}:x3={moving(4)}:y3={moving(5)}:sense=destination:"
                          "interpolation=linear:eval=frame")
    x, y = int(320 * scale) & ~1, int(120 * scale) & ~1
    # Each baseline is the same graph with the filter switched off (enable=0): maskedmerge then clones its first
    # input, overlay passes its main input, perspective (generic timeline support) is not called.
    return [
        (f"alpha overlay ({int(640 * scale)}x{int(480 * scale)} yuva420p onto the frame)", "overlay", "overlay",
         [(False, path("base.y4m")), (False, path("sticker.nut"))],
         f"[0:v][1:v]overlay={x}:{y}:format=yuv420[out]", f"[0:v][1:v]overlay={x}:{y}:format=yuv420:enable=0[out]"),
        ("mask blend (a full-frame overlay through a full-frame mask)", "mask", "maskedmerge",
         [(False, path("base.y4m")), (False, path("picture150.nut")), (False, path("mask420.nut"))],
         "[0:v][1:v][2:v]maskedmerge[out]", "[0:v][1:v][2:v]maskedmerge=enable=0[out]"),
        ("homography warp, tracked corners (a frame-sized picture onto a moving quad, bilinear)", "warp",
         "perspective linear eval=frame", [(False, path("base.y4m"))], f"[0:v]{moving_perspective}[out]",
         f"[0:v]{moving_perspective}:enable=0[out]"),
        ("homography warp against static corners (ffmpeg builds its map once)", "warp-static",
         "perspective linear eval=init",
         [(False, path("base.y4m"))], f"[0:v]{perspective}[out]", f"[0:v]{perspective}:enable=0[out]"),
    ]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("probe")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--update")
    options = parser.parse_args()
    rows = []
    first_load = os.getloadavg()[0]
    for size_name, (width, height) in SIZES.items():
        with tempfile.TemporaryDirectory(prefix="overlay-kernels") as directory:
            make_media(directory, width, height)
            size = f"{width}x{height}"
            for title, mode, filter_name, inputs, graph, baseline in cases(directory, width):
                title = f"{size_name}: {title}"
                ours, our_bases, theirs, bases = [], [], [], []
                for _ in range(options.runs):
                    probe = json.loads(run([options.probe, mode, directory, str(FRAMES), size]).stdout)
                    ours.append(probe["ms_per_frame"])
                    probe = json.loads(run([options.probe, "none", directory, str(FRAMES), size]).stdout)
                    our_bases.append(probe["ms_per_frame"])
                    theirs.append(ffmpeg_seconds(inputs, graph))
                    bases.append(ffmpeg_seconds(inputs, baseline))
                rtenc_total_ms = statistics.median(ours)
                rtenc_base_ms = statistics.median(our_bases)
                rtenc_ms = max(rtenc_total_ms - rtenc_base_ms, 1e-6)
                ffmpeg_ms = statistics.median(theirs) * 1000 / FRAMES
                baseline_ms = statistics.median(bases) * 1000 / FRAMES
                net_ms = max(ffmpeg_ms - baseline_ms, 1e-6)
                rows.append((title, filter_name, rtenc_ms, rtenc_total_ms, rtenc_base_ms, ffmpeg_ms, baseline_ms, net_ms,
                             rtenc_ms / net_ms))
                print(f"{title}: rtenc {rtenc_ms:.3f} ms net ({rtenc_total_ms:.3f} - {rtenc_base_ms:.3f}), "
                      f"ffmpeg {filter_name} {net_ms:.3f} ms net "
                      f"({ffmpeg_ms:.3f} - {baseline_ms:.3f}), ratio {rtenc_ms / net_ms:.3f}", flush=True)
    cpus = os.cpu_count()
    load = " / ".join(f"{value:.1f}" for value in (first_load, os.getloadavg()[0]))
    load = f"{load} at the start / end"
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"Generated {stamp} by `make bench-overlay` on {cpus} CPUs (medians of {options.runs} interleaved runs, "
             f"{FRAMES} frames per size, one thread, CPU time; ffmpeg's baseline: the same graph with enable=0; "
             f"both sides with frame-sized allocations kept in the heap; load average {load}).", "",
             "| kernel | rtenc ms/frame (run − baseline) | ffmpeg filter | ffmpeg ms/frame (run − baseline) | ratio | goal |",
             "|---|---|---|---|---|---|"]
    for title, filter_name, rtenc_ms, rtenc_total, rtenc_base, ffmpeg_ms, baseline_ms, net_ms, ratio in rows:
        lines.append(f"| {title} | {rtenc_ms:.3f} ({rtenc_total:.3f} − {rtenc_base:.3f}) | `{filter_name}` | "
                     f"{net_ms:.3f} ({ffmpeg_ms:.3f} − {baseline_ms:.3f}) "
                     f"| {ratio:.3f}× | ≤ 0.25× {'met' if ratio <= 0.25 else 'not met'} |")
    table = "\n".join(lines)
    print(table)
    if options.update:
        update_section(options.update, "overlay-kernels", table)


def update_section(path, name, table):
    """Replaces what lies between `<!-- name:begin -->` and `<!-- name:end -->` in `path` with `table`."""
    text = open(path).read()
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    if begin not in text:
        sys.exit(f"{path} has no {begin} marker")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    open(path, "w").write(head + begin + "\n" + table + "\n" + end + tail)


if __name__ == "__main__":
    main()
