#!/bin/bash
# Glass-to-glass latency of rtenc serve into headless Chromium (BENCHMARKS.md "WebRTC"): for each size, RUNS runs of
# SECONDS each in a network namespace of their own (scripts/whep-serve-check.sh chromium), one table row per run.
#   scripts/whep-latency-bench.sh RTENC [SECONDS=15] [RUNS=2] [SIZES="640x360 1280x720"]
set -u
rtenc=$1; seconds=${2:-15}; runs=${3:-2}; sizes=${4:-"640x360 1280x720"}
here=$(cd "$(dirname "$0")" && pwd)
echo "| size | run | barcode latency median / p90 (ms) | frames decoded | navigation → first frame (ms) | POST → first IDR queued (ms) | kb/s | frames dropped |"
echo "|---|---|---|---|---|---|---|---|"
for size in $sizes; do
    for run in $(seq 1 "$runs"); do
        out=$(mktemp -d /tmp/rtenc-whep-bench.XXXXXX)
        timeout $((seconds + 70)) unshare --net --fork "$here/whep-serve-check.sh" "$rtenc" "$out" chromium "$seconds" \
            --size "$size" testsrc:barcode >/dev/null 2>&1
        /usr/bin/python3 - "$out" "$size" "$run" <<'PY'
import json, sys
out, size, run = sys.argv[1:]
try:
    page = json.load(open(out + "/viewer-1.json")); s = page["stats"]
    lines = [json.loads(l) for l in open(out + "/stats.jsonl")]
    idr = next((v["first_keyframe_ms"] for l in lines for v in l["viewers"] if v.get("first_keyframe_ms")), None)
    lat = page.get("latency_ms", {})
    print(f"| {size} | {run} | {lat.get('median')} / {lat.get('p90')} | {s.get('framesDecoded')} | {page.get('first_frame_ms')} | "
          f"{round(idr) if idr else None} | {s.get('kbps')} | {s.get('framesDropped')} |")
except Exception as error:
    print(f"| {size} | {run} | failed: {error} | | | | | |")
PY
        rm -rf "$out"
    done
done
