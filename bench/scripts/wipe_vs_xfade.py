#!/usr/bin/env python3
"""The luma-map wipe kernel against ffmpeg's xfade=wipeleft at 720p, one core each, from one run.

Runs the CompositionBenchmarks micro benchmarks (package-benchmark; one iteration = one 720p I420 frame; the p50
of its text table) and, right
after, ffmpeg 5.1's xfade=wipeleft over two 5 s 720p30 yuv420p Y4M inputs in the page cache with every thread count
at 1 and -benchmark (user time / output frames, as issue 14's 7.0 ms was measured; xfade takes 4:4:4 only, so its
figure includes the 4:2:0 -> 4:4:4 conversion ffmpeg inserts, which is part of what using it costs). Prints the
medians and the ratio ours / xfade as one JSON line.
Usage (from the repository root): python3 bench/scripts/wipe_vs_xfade.py
"""
import json
import os
import re
import subprocess
import sys
import tempfile


def ours():
    # package-benchmark's text table: a line with the benchmark's name, then "│ Time (wall clock) (μs) * │ p0 │ p25 │ p50 …".
    result = subprocess.run(["swift", "package", "--allow-writing-to-package-directory", "benchmark", "--target",
                             "CompositionBenchmarks", "--no-progress"],
                            cwd="bench", check=True, timeout=3600, capture_output=True, text=True)
    medians, name = {}, None
    for line in result.stdout.splitlines():
        if re.match(r"^[\w,.()-]+$", line.strip()) and "_" in line:
            name = line.strip().replace("_", " ")
        match = re.match(r"^│ Time \(wall clock\) \((\w+)\)", line)
        if match and name:
            cells = [c.strip() for c in line.split("│")[2:] if c.strip()]
            scale = {"ns": 1e-6, "μs": 1e-3, "us": 1e-3, "ms": 1, "s": 1e3}[match.group(1)]
            medians[name] = float(cells[2]) * scale
    return medians


def xfade(directory):
    inputs = []
    for name, source in [("a", "testsrc2"), ("b", "smptehdbars")]:
        path = os.path.join(directory, name + ".y4m")
        subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                        f"{source}=size=1280x720:rate=30", "-frames:v", "150", "-pix_fmt", "yuv420p", path],
                       check=True, timeout=120)
        inputs += ["-i", path]
    runs = []
    for _ in range(3):
        result = subprocess.run(["ffmpeg", "-nostdin", "-benchmark", "-threads", "1", "-filter_threads", "1",
                                 "-filter_complex_threads", "1"] + inputs +
                                ["-filter_complex", "[0:v][1:v]xfade=transition=wipeleft:duration=4.9:offset=0.05",
                                 "-f", "null", "-"], capture_output=True, text=True, timeout=300, check=True)
        frames = int(re.findall(r"frame=\s*(\d+)", result.stderr)[-1])
        utime = float(re.search(r"utime=([\d.]+)s", result.stderr).group(1))
        runs.append(utime * 1000 / frames)
    return sorted(runs)[1]


def main():
    medians = ours()
    with tempfile.TemporaryDirectory() as directory:
        theirs = xfade(directory)
    wipe = medians["wipe, linear, hard edge (one 720p frame)"]
    print(json.dumps({
        "ours_ms_per_frame": {k: round(v, 3) for k, v in medians.items()},
        "xfade_wipeleft_ms_per_frame": round(theirs, 2),
        "ratio_linear_wipe_to_xfade": round(wipe / theirs, 3),
    }))


if __name__ == "__main__":
    sys.exit(main())
