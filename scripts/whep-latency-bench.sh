#!/bin/bash
# Glass-to-glass latency into headless Chromium (BENCHMARKS.md "WebRTC"), rtenc serve and the aiortc sender side by
# side in the same run: for each run and size, one rtenc run and one aiortc run (alternating which goes first), each
# for SECONDS in a network namespace of its own, the same player page (rtenc's, saved once and served by both), the same
# picture (testsrc + the clock barcode drawn when the frame is due), Chromium reading the barcode. One table row per
# run, the 1-minute load average before each, then the medians over the runs and rtenc ÷ aiortc, then where the time
# went: rtenc's own steps (its --stats-json stages_ms and send_ms, medians of the per-second p50s after the first 3 s)
# and Chromium's (the player page's per-frame split and getStats counters, whep-chromium-check.py's breakdown_ms).
#   scripts/whep-latency-bench.sh RTENC [SECONDS=15] [RUNS=3] [SIZES="640x360 1280x720"]
# RTENC_SERVE_OPTIONS adds options to every rtenc serve run, e.g. "--smooth-playout" for the like-for-like comparison
# (aiortc sends no playout-delay extension, so Chromium smooths its frames).
set -u
rtenc=$1; seconds=${2:-15}; runs=${3:-3}; sizes=${4:-"640x360 1280x720"}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/rtenc-whep-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The player page, as rtenc serves it.
timeout 30 unshare --net --fork bash -c "ip link set lo up
    '$rtenc' serve --whep 127.0.0.1:8089 --duration 20 --size 320x240 --quiet >/dev/null 2>&1 & server=\$!
    for _ in \$(seq 1 100); do curl -sf http://127.0.0.1:8089/ >'$work/page.html' && break; sleep 0.1; done
    kill -INT \$server; wait \$server" >/dev/null 2>&1
grep -q requestVideoFrameCallback "$work/page.html" 2>/dev/null || { echo "could not fetch rtenc's player page" >&2; exit 1; }

# One aiortc run inside its own namespace: the sender, then Chromium on its page.
aiortc_run() {  # OUT SIZE
    timeout $((seconds + 70)) unshare --net --fork bash -c "ip link set lo up; ip addr add 127.0.0.2/8 dev lo
        timeout $((seconds + 60)) /usr/bin/python3 '$here/whep-aiortc-server.py' 8089 $((seconds + 50)) '$work/page.html' $2 \
            >'$1/server.out' 2>'$1/server.err' & server=\$!
        for _ in \$(seq 1 200); do grep -q listening '$1/server.out' 2>/dev/null && break; sleep 0.1; done
        timeout $((seconds + 40)) /usr/bin/python3 '$here/whep-chromium-check.py' http://127.0.0.1:8089/ $seconds '$1' \
            >'$1/viewer-1.json' 2>'$1/viewer-1.err'
        kill \$server; wait \$server" >/dev/null 2>&1
}

rtenc_run() {  # OUT SIZE
    timeout $((seconds + 70)) unshare --net --fork "$here/whep-serve-check.sh" "$rtenc" "$1" chromium "$seconds" \
        --size "$2" ${RTENC_SERVE_OPTIONS:-} testsrc:barcode >/dev/null 2>&1
}

for run in $(seq 1 "$runs"); do
    for size in $sizes; do
        order="rtenc aiortc"; [ $((run % 2)) -eq 0 ] && order="aiortc rtenc"
        for sender in $order; do
            out="$work/$size-$run-$sender"; mkdir -p "$out"
            cut -d' ' -f1 /proc/loadavg >"$out/load"
            "${sender}_run" "$out" "$size"
            /usr/bin/python3 - "$out" "$size" "$run" "$sender" >>"$work/rows.jsonl" <<'PY'
import json, sys
out, size, run, sender = sys.argv[1:]
row = {"size": size, "run": int(run), "sender": sender, "load": float(open(out + "/load").read())}
try:
    page = json.load(open(out + "/viewer-1.json")); s = page.get("stats") or {}
    lat = page.get("latency_ms") or {}
    row.update(median=lat.get("median"), p90=lat.get("p90"), frames=s.get("framesDecoded"), kbps=s.get("kbps"),
               post_to_frame=page.get("post_to_first_frame_ms"), navigation_to_frame=page.get("first_frame_ms"),
               dropped=s.get("framesDropped"), errors=page.get("errors"))
    row["breakdown"] = page.get("breakdown_ms") or {}
    if sender == "rtenc":
        lines = [json.loads(l) for l in open(out + "/stats.jsonl")]
        row["idr"] = next((round(v["first_keyframe_ms"]) for l in lines for v in l["viewers"] if v.get("first_keyframe_ms")), None)
        settled = [l for l in lines if l["time"] >= 3]
        def median(values):
            values = sorted(values)
            return values[len(values) // 2] if values else None
        steps = {name: median([l["stages_ms"][name]["p50"] for l in settled if name in l.get("stages_ms", {})])
                 for name in ("source", "encode", "hand_over")}
        for name in ("first_packet", "last_packet"):
            steps[name] = median([v["send_ms"][name]["p50"] for l in settled for v in l["viewers"] if name in (v.get("send_ms") or {})])
        steps["last_packet_p90"] = median([v["send_ms"]["last_packet"]["p90"] for l in settled for v in l["viewers"]
                                           if "last_packet" in (v.get("send_ms") or {})])
        row["steps"] = steps
except Exception as error:
    row["failed"] = repr(error)
print(json.dumps(row))
PY
        done
    done
done

/usr/bin/python3 - "$work/rows.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("| size | run | sender | load (1 min) | barcode latency median / p90 (ms) | frames decoded | POST → first frame painted (ms) | navigation → first frame read (ms) | rtenc: POST → first IDR queued (ms) | kb/s (last s) | frames dropped |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    if "failed" in r:
        print(f"| {r['size']} | {r['run']} | {r['sender']} | {r['load']} | failed: {r['failed']} | | | | | | |"); continue
    print(f"| {r['size']} | {r['run']} | {r['sender']} | {r['load']} | {r['median']} / {r['p90']} | {r['frames']} | {r['post_to_frame']} | "
          f"{r['navigation_to_frame']} | {r.get('idr', '–')} | {r['kbps']} | {r['dropped']} |")
print()
print("| size | measure | rtenc (median of runs) | aiortc (median of runs) | rtenc ÷ aiortc |")
print("|---|---|---|---|---|")
for size in dict.fromkeys(r["size"] for r in rows):
    for key, name in (("median", "latency median (ms)"), ("p90", "latency p90 (ms)"), ("post_to_frame", "POST → first frame (ms)")):
        values = {s: [r[key] for r in rows if r["size"] == size and r["sender"] == s and r.get(key) is not None] for s in ("rtenc", "aiortc")}
        if not values["rtenc"] or not values["aiortc"]:
            print(f"| {size} | {name} | {values['rtenc']} | {values['aiortc']} | – |"); continue
        a, b = statistics.median(values["rtenc"]), statistics.median(values["aiortc"])
        print(f"| {size} | {name} | {a:g} | {b:g} | {a / b:.2f} |")

def median(values):
    values = sorted(v for v in values if v is not None)
    return values[len(values) // 2] if values else None
def cell(value):
    return "–" if value is None else f"{value:g}"
print()
print("Where the time went (ms, medians over the runs; rtenc's steps are medians of its per-second p50s, Chromium's split medians over the frames):")
print()
steps = ("source", "encode", "hand_over", "first_packet", "last_packet", "last_packet_p90")
split = ("to_receive", "receive_to_present", "present_to_callback", "chromium_jitterBuffer", "chromium_decode",
         "chromium_processing", "chromium_assembly", "chromium_jitterBufferTarget")
print("| size | sender | latency median | " + " | ".join("rtenc " + s for s in steps) + " | " + " | ".join(split) + " |")
print("|---|---|---|" + "---|" * (len(steps) + len(split)))
for size in dict.fromkeys(r["size"] for r in rows):
    for sender in ("rtenc", "aiortc"):
        runs = [r for r in rows if r["size"] == size and r["sender"] == sender and "failed" not in r]
        if not runs:
            continue
        own = [cell(median(r.get("steps", {}).get(s) for r in runs)) if sender == "rtenc" else "–" for s in steps]
        theirs = [cell(median(r["breakdown"].get(s) for r in runs)) for s in split]
        print(f"| {size} | {sender} | {cell(median(r.get('median') for r in runs))} | " + " | ".join(own + theirs) + " |")
PY
