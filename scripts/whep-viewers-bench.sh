#!/bin/bash
# Viewers per `rtenc serve` process at 720p30 2 Mb/s (BENCHMARKS.md "WebRTC"): for each viewer count N, one run in a
# network namespace of its own — rtenc serve of testsrc:noise:barcode (noise keeps x264 at the 2 Mb/s it is given),
# one decoding aiortc player (scripts/whep-aiortc-client.py without REMB: its barcode latency is the witness) and N − 1
# light viewers (scripts/whep-aiortc-viewers.py: aiortc's ICE, DTLS and SRTP, then a counter of complete frames — no
# RTP parsing in Python, no jitter buffer, no NACK, no REMB: no player moves the 2 Mb/s target) split over
# processes of at most PER_PROCESS (default 6) viewers each, so the players are not one Python thread behind. rtenc's
# CPU and the players' (utime + stime from /proc/PID/stat, sampled every 0.5 s) are taken over the steady window: the
# WINDOW seconds starting 2 s after --stats-json first shows all N viewers connected. A count is held in real time when
# every light viewer completed ≥ 29 frames in every whole second of that window, the witness's median latency (its
# second half) stayed under 100 ms, and the target stayed at 2 Mb/s (≥ 1900 kb/s in every line of the window).
#   scripts/whep-viewers-bench.sh RTENC [COUNTS="1 4 8 16 24 32"] [ROUNDS=1] [WINDOW=8]
# KEEP=1 keeps the runs' files (stats, players' JSON, CPU samples) and prints where. Rounds alternate the order.
set -u
rtenc=$1; counts=${2:-"1 4 8 16 24 32"}; rounds=${3:-1}; window=${4:-8}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/rtenc-viewers-bench.XXXXXX)
[ -n "${KEEP:-}" ] && echo "keeping $work" >&2 || trap 'rm -rf "$work"' EXIT
# The players' own start (importing aiortc took up to 8 s on a loaded host) + connecting + the window + a margin.
seconds=$((window + 22))
per_process=${PER_PROCESS:-6}
case $per_process in ""|*[!0-9]*|0) echo "whep-viewers-bench: PER_PROCESS must be a whole number ≥ 1" >&2; exit 64;; esac
# The witness is whep-aiortc-client.py with aiortc's receive-side estimator silenced: no REMB from any player, so the
# target stays at --bitrate and a count is held or not by rtenc alone (a starved player's REMB would lower it for all).
export witness_without_remb='import os, runpy, sys
from aiortc import rate
rate.RemoteBitrateEstimator.add = lambda self, *args, **kwargs: None
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(sys.argv[0]))
runpy.run_path(sys.argv[0], run_name="__main__")'

one_run() {  # OUT N
    local out=$1 n=$2
    timeout $((seconds + 90)) unshare --net --fork bash -c "ip link set lo up; ip addr add 127.0.0.2/8 dev lo
        date +%s.%N >'$out/start'
        '$rtenc' serve --whep 127.0.0.1:8089 --duration $((seconds + 40)) --size 1280x720 --bitrate 2M \
            --max-viewers $((n + 8)) --max-pending-viewers $((n + 8)) --stats-json '$out/stats.jsonl' testsrc:noise:barcode \
            >'$out/rtenc.out' 2>'$out/rtenc.err' & server=\$!
        while kill -0 \$server 2>/dev/null; do
            players=0; for p in \$(pgrep -f '$here/whep-aiortc-' 2>/dev/null); do
                players=\$((players + \$(awk '{print \$14 + \$15}' /proc/\$p/stat 2>/dev/null || echo 0))); done
            echo \"\$(date +%s.%N) \$(awk '{print \$14 + \$15}' /proc/\$server/stat 2>/dev/null) \$players\" >>'$out/cpu.log'; sleep 0.5
        done & sampler=\$!
        for _ in \$(seq 1 100); do grep -q 'open http' '$out/rtenc.out' 2>/dev/null && break; sleep 0.1; done
        timeout $((seconds + 40)) /usr/bin/python3 -c \"\$witness_without_remb\" '$here/whep-aiortc-client.py' http://127.0.0.1:8089/whep $seconds --delete \
            --settle $((seconds / 2)) >'$out/witness.json' 2>'$out/witness.err' & witness=\$!
        light=\$(($n - 1)); part=0; viewers=
        while [ \$light -gt 0 ]; do
            take=\$((light < $per_process ? light : $per_process)); part=\$((part + 1)); light=\$((light - take))
            timeout $((seconds + 60)) /usr/bin/python3 '$here/whep-aiortc-viewers.py' http://127.0.0.1:8089/whep $seconds \$take \
                >'$out/viewers.'\$part'.json' 2>'$out/viewers.'\$part'.err' & viewers=\"\$viewers \$!\"
            sleep 0.3
        done
        wait \$witness; for v in \$viewers; do wait \$v; done
        kill -INT \$server; wait \$server; wait \$sampler" >/dev/null 2>&1
}

for round in $(seq 1 "$rounds"); do
    list=$counts; [ $((round % 2)) -eq 0 ] && list=$(echo "$counts" | tr ' ' '\n' | tac | tr '\n' ' ')
    for n in $list; do
        out="$work/$n-$round"; mkdir -p "$out"
        cut -d' ' -f1 /proc/loadavg >"$out/load"
        one_run "$out" "$n"
        /usr/bin/python3 - "$out" "$n" "$round" "$window" "$(getconf CLK_TCK)" >>"$work/rows.jsonl" <<'PY'
import glob, json, sys
out, n, rnd, window, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
row = {"viewers": n, "round": rnd, "load": float(open(out + "/load").read())}
try:
    start = float(open(out + "/start").read())
    lines = [json.loads(l) for l in open(out + "/stats.jsonl")]
    connected = lambda l: [v for v in l["viewers"] if v["state"] == "connected"]
    all_in = next(l["time"] for l in lines if len(connected(l)) >= n)
    first, last = all_in + 2, all_in + 2 + window  # rtenc's clock: seconds after its start
    samples = [(float(t) - start, float(c), float(p)) for t, c, p in (l.split() for l in open(out + "/cpu.log") if len(l.split()) == 3)]
    inside = [s for s in samples if first <= s[0] <= last]
    row["cpu"] = round((inside[-1][1] - inside[0][1]) / hz / (inside[-1][0] - inside[0][0]) * 100, 1)
    row["players_cpu"] = round((inside[-1][2] - inside[0][2]) / hz / (inside[-1][0] - inside[0][0]) * 100, 1)
    row["target_min"] = min(l["target_kbps"] for l in lines if first <= l["time"] <= last)
    kbps = [v["kbps"] for l in lines if first + 1 <= l["time"] <= last for v in connected(l)]
    row["kbps_min"], row["kbps_mean"] = round(min(kbps)), round(sum(kbps) / len(kbps))
    witness = json.load(open(out + "/witness.json"))
    settled = witness.get("latency_settled_ms") or {}
    row.update(witness_median=settled.get("median"), witness_p90=settled.get("p90"))
    rates = []
    if n > 1:
        light = [v for part in sorted(glob.glob(out + "/viewers.*.json")) for v in json.load(open(part))["viewers"]]
        row["light_started"] = len(light)
        row["refused"] = sum(v.get("status") != 201 for v in light)
        seconds = range(int(start + first) + 1, int(start + last))  # whole Unix seconds inside the window
        rates = [min(v.get("per_second", {}).get(str(s), 0) for s in seconds) for v in light]
        row["fps_min"] = min(rates)
    row["held"] = bool((not rates or (len(rates) == n - 1 and min(rates) >= 29)) and row["target_min"] >= 1900
                       and settled.get("median") is not None and settled["median"] < 100)
except Exception as error:
    row["failed"] = repr(error)
print(json.dumps(row))
PY
    done
done

/usr/bin/python3 - "$work/rows.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("| viewers | round | load (1 min) | rtenc CPU (% of a core) | CPU per viewer beyond the first (% of a core) | players' CPU (% of a core) | target, lowest (kb/s) | kb/s per viewer (min / mean) | light viewers: least frames in a second | refused | witness latency median / p90 (ms) | held in real time |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
base = {r["round"]: r["cpu"] for r in rows if r["viewers"] == 1 and "cpu" in r}
for r in rows:
    if "failed" in r:
        print(f"| {r['viewers']} | {r['round']} | {r['load']} | failed: {r['failed']} | | | | | | | | |"); continue
    extra = round((r["cpu"] - base[r["round"]]) / (r["viewers"] - 1), 2) if r["viewers"] > 1 and r["round"] in base else "–"
    print(f"| {r['viewers']} | {r['round']} | {r['load']} | {r['cpu']} | {extra} | {r['players_cpu']} | {r['target_min']} | {r['kbps_min']} / {r['kbps_mean']} | {r.get('fps_min', '–')} | "
          f"{r.get('refused', 0)} | {r['witness_median']} / {r['witness_p90']} | {'yes' if r['held'] else 'no'} |")
PY
