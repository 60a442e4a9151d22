#!/bin/bash
# Viewers per `rtenc serve` process at 720p30 2 Mb/s (BENCHMARKS.md "WebRTC"): for each viewer count N, one run in a
# network namespace of its own — rtenc serve of testsrc:noise:barcode (noise keeps x264 at the 2 Mb/s it is given),
# one decoding aiortc player (scripts/whep-aiortc-client.py: its barcode latency is the witness) and N − 1 light
# aiortc viewers in one process (scripts/whep-aiortc-viewers.py: full peers that count complete frames instead of
# decoding). rtenc's CPU (utime + stime from /proc/PID/stat, sampled every 0.5 s) is taken over the steady window: the
# WINDOW seconds starting 2 s after --stats-json first shows all N viewers connected. A count is held in real time when
# every light viewer completed ≥ 29 frames/s in that window and the witness's median latency (its second half) stayed
# under 100 ms. The players run on the same cores and are not counted.
#   scripts/whep-viewers-bench.sh RTENC [COUNTS="1 4 8 16 24 32"] [ROUNDS=1] [WINDOW=8]
# KEEP=1 keeps the runs' files (stats, players' JSON, CPU samples) and prints where. Rounds alternate the order.
set -u
rtenc=$1; counts=${2:-"1 4 8 16 24 32"}; rounds=${3:-1}; window=${4:-8}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/rtenc-viewers-bench.XXXXXX)
[ -n "${KEEP:-}" ] && echo "keeping $work" >&2 || trap 'rm -rf "$work"' EXIT
# The players' own start (importing aiortc took up to 8 s on a loaded host) + connecting + the window + a margin.
seconds=$((window + 22))

one_run() {  # OUT N
    local out=$1 n=$2
    timeout $((seconds + 90)) unshare --net --fork bash -c "ip link set lo up; ip addr add 127.0.0.2/8 dev lo
        date +%s.%N >'$out/start'
        '$rtenc' serve --whep 127.0.0.1:8089 --duration $((seconds + 40)) --size 1280x720 --bitrate 2M \
            --max-viewers $((n + 8)) --max-pending-viewers $((n + 8)) --stats-json '$out/stats.jsonl' testsrc:noise:barcode \
            >'$out/rtenc.out' 2>'$out/rtenc.err' & server=\$!
        while kill -0 \$server 2>/dev/null; do
            echo \"\$(date +%s.%N) \$(awk '{print \$14 + \$15}' /proc/\$server/stat 2>/dev/null)\" >>'$out/cpu.log'; sleep 0.5
        done & sampler=\$!
        for _ in \$(seq 1 100); do grep -q 'open http' '$out/rtenc.out' 2>/dev/null && break; sleep 0.1; done
        timeout $((seconds + 40)) /usr/bin/python3 '$here/whep-aiortc-client.py' http://127.0.0.1:8089/whep $seconds --delete \
            --settle $((seconds / 2)) >'$out/witness.json' 2>'$out/witness.err' & witness=\$!
        if [ $n -gt 1 ]; then
            timeout $((seconds + 60)) /usr/bin/python3 '$here/whep-aiortc-viewers.py' http://127.0.0.1:8089/whep $seconds $((n - 1)) \
                >'$out/viewers.json' 2>'$out/viewers.err' & viewers=\$!
        fi
        wait \$witness; [ $n -gt 1 ] && wait \$viewers
        kill -INT \$server; wait \$server; wait \$sampler" >/dev/null 2>&1
}

for round in $(seq 1 "$rounds"); do
    list=$counts; [ $((round % 2)) -eq 0 ] && list=$(echo "$counts" | tr ' ' '\n' | tac | tr '\n' ' ')
    for n in $list; do
        out="$work/$n-$round"; mkdir -p "$out"
        cut -d' ' -f1 /proc/loadavg >"$out/load"
        one_run "$out" "$n"
        /usr/bin/python3 - "$out" "$n" "$round" "$window" "$(getconf CLK_TCK)" >>"$work/rows.jsonl" <<'PY'
import json, sys
out, n, rnd, window, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
row = {"viewers": n, "round": rnd, "load": float(open(out + "/load").read())}
try:
    start = float(open(out + "/start").read())
    lines = [json.loads(l) for l in open(out + "/stats.jsonl")]
    connected = lambda l: [v for v in l["viewers"] if v["state"] == "connected"]
    all_in = next(l["time"] for l in lines if len(connected(l)) >= n)
    first, last = all_in + 2, all_in + 2 + window  # rtenc's clock: seconds after its start
    samples = [(float(t) - start, float(c)) for t, c in (l.split() for l in open(out + "/cpu.log") if len(l.split()) == 2)]
    inside = [s for s in samples if first <= s[0] <= last]
    row["cpu"] = round((inside[-1][1] - inside[0][1]) / hz / (inside[-1][0] - inside[0][0]) * 100, 1)
    kbps = [v["kbps"] for l in lines if first + 1 <= l["time"] <= last for v in connected(l)]
    row["kbps_min"], row["kbps_mean"] = round(min(kbps)), round(sum(kbps) / len(kbps))
    witness = json.load(open(out + "/witness.json"))
    settled = witness.get("latency_settled_ms") or {}
    row.update(witness_median=settled.get("median"), witness_p90=settled.get("p90"))
    rates = []
    if n > 1:
        light = json.load(open(out + "/viewers.json"))["viewers"]
        row["refused"] = sum(v.get("status") != 201 for v in light)
        seconds = range(int(start + first) + 1, int(start + last))  # whole Unix seconds inside the window
        rates = [min(v.get("per_second", {}).get(str(s), 0) for s in seconds) for v in light]
        row["fps_min"] = min(rates)
    row["held"] = bool((not rates or min(rates) >= 29) and settled.get("median") is not None and settled["median"] < 100)
except Exception as error:
    row["failed"] = repr(error)
print(json.dumps(row))
PY
    done
done

/usr/bin/python3 - "$work/rows.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("| viewers | round | load (1 min) | rtenc CPU (% of a core) | CPU per viewer beyond the first (% of a core) | kb/s per viewer (min / mean) | light viewers: least frames in a second | refused | witness latency median / p90 (ms) | held in real time |")
print("|---|---|---|---|---|---|---|---|---|---|")
base = {r["round"]: r["cpu"] for r in rows if r["viewers"] == 1 and "cpu" in r}
for r in rows:
    if "failed" in r:
        print(f"| {r['viewers']} | {r['round']} | {r['load']} | failed: {r['failed']} | | | | | | |"); continue
    extra = round((r["cpu"] - base[r["round"]]) / (r["viewers"] - 1), 2) if r["viewers"] > 1 and r["round"] in base else "–"
    print(f"| {r['viewers']} | {r['round']} | {r['load']} | {r['cpu']} | {extra} | {r['kbps_min']} / {r['kbps_mean']} | {r.get('fps_min', '–')} | "
          f"{r.get('refused', 0)} | {r['witness_median']} / {r['witness_p90']} | {'yes' if r['held'] else 'no'} |")
PY
