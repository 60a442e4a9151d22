#!/bin/bash
# rtenc serve against aiortc WHEP players, inside a network namespace of its own (only lo, plus the 127.0.0.2/8
# alias aioice needs: it skips exactly 127.0.0.1 when gathering). Run as:
#   unshare --net --fork scripts/whep-serve-check.sh RTENC OUTDIR VIEWERS SECONDS [extra rtenc serve options…]
# VIEWERS: how many aiortc players at once, "chromium" for one headless Chromium on the player page, or
# "gstreamer-h265" / "gstreamer-h264" for one GStreamer webrtcbin player of that codec (whep-gstreamer-client.py).
# Writes OUTDIR/viewer-N.json (whep-aiortc-client.py's or whep-chromium-check.py's result), OUTDIR/stats.jsonl,
# OUTDIR/rtenc.out/.err (and OUTDIR/chromium.png; with UDP_RATE, OUTDIR/tc.txt: the shaper's counters).
# Environment: UDP_RATE (tc rate, e.g. 800kbit) shapes UDP on lo; UDP_SCHEDULE ("800kbit@15 2mbit@30": RATE@SECONDS
# from rtenc's start, the clock its --stats-json "time" runs on) changes that rate while it runs, each change logged
# to OUTDIR/schedule.txt; SETTLE (seconds) has the aiortc players report the latency of the frames after that time
# apart (latency_settled_ms); UDP_DROP ("PORT:PERCENT") drops that share of the UDP datagrams from that source port
# (rtenc's media socket, given with --webrtc-udp) at random on arrival (nftables; the players NACK, rtenc re-sends).
# Every process is bounded by timeout and stopped before the script returns.
set -u
rtenc=$1; out=$2; viewers=$3; seconds=$4; shift 4
here=$(cd "$(dirname "$0")" && pwd)
if ip -o link show | grep -qv ': lo:'; then echo "refusing to run outside a namespace with only lo" >&2; exit 2; fi
ip link set lo up
ip addr add 127.0.0.2/8 dev lo 2>/dev/null
# UDP_RATE=800kbit: a constrained link (design/webrtc.md Appendix A). This kernel has no netem; htb does rate limits.
# Only UDP is shaped (ICE, DTLS, SRTP, SRTCP, both directions through one class and a 30-packet queue): HTTP and
# Chromium's DevTools also run over lo and would die under a qdisc on all of it.
if [ -n "${UDP_RATE:-}" ]; then
    tc qdisc add dev lo root handle 1: htb default 10 r2q 1000 &&
    tc class add dev lo parent 1: classid 1:10 htb rate 10gbit &&
    tc class add dev lo parent 1: classid 1:20 htb rate "$UDP_RATE" ceil "$UDP_RATE" &&
    tc qdisc add dev lo parent 1:20 handle 20: pfifo limit 30 &&
    tc filter add dev lo parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff flowid 1:20 ||
        { echo "cannot shape UDP to $UDP_RATE with tc htb" >&2; exit 3; }
fi
if [ -n "${UDP_DROP:-}" ]; then
    nft add table inet rtenc_drop &&
    nft add chain inet rtenc_drop in '{ type filter hook input priority 0; }' &&
    nft add rule inet rtenc_drop in udp sport "${UDP_DROP%:*}" numgen random mod 100 '<' "${UDP_DROP#*:}" counter drop ||
        { echo "cannot drop ${UDP_DROP#*:}% of UDP from port ${UDP_DROP%:*} with nft" >&2; exit 3; }
fi
port=8089
# rtenc serves until the players are done (then Ctrl-C); --duration is only the backstop, with room for a player's
# start-up on a loaded machine (importing aiortc took 8 s there).
serve_for=$(python3 -c "print(int($seconds) + 20)")
# rtenc's CPU time (user, system seconds) goes to OUTDIR/rtenc.time when /usr/bin/time is there.
timer=(); [ -x /usr/bin/time ] && timer=(/usr/bin/time -f "%U %S" -o "$out/rtenc.time")
timeout $((serve_for + 10)) "${timer[@]}" "$rtenc" serve --whep 127.0.0.1:$port --duration "$serve_for" --stats-json "$out/stats.jsonl" "$@" \
    >"$out/rtenc.out" 2>"$out/rtenc.err" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null' EXIT
for _ in $(seq 1 100); do
    grep -q "open http" "$out/rtenc.out" 2>/dev/null && break
    kill -0 $server 2>/dev/null || break
    sleep 0.1
done
pids=()
if [ -n "${UDP_RATE:-}" ] && [ -n "${UDP_SCHEDULE:-}" ]; then
    (
        start=$(date +%s.%N)
        for step in $UDP_SCHEDULE; do
            rate=${step%@*}; at=${step#*@}
            sleep "$(python3 -c "import time; print(max(0.0, $start + $at - time.time()))")"
            tc class change dev lo parent 1: classid 1:20 htb rate "$rate" ceil "$rate" &&
                echo "$(python3 -c "import time; print(round(time.time() - $start, 2))") $rate" >>"$out/schedule.txt"
        done
    ) &
    schedule=$!
fi
if [ "$viewers" = chromium ]; then
    timeout $((${seconds%.*} + 40)) /usr/bin/python3 "$here/whep-chromium-check.py" "http://127.0.0.1:$port/" "$seconds" "$out" \
        >"$out/viewer-1.json" 2>"$out/viewer-1.err" &
    pids+=($!)
    viewers=0
elif [ "${viewers#gstreamer-}" != "$viewers" ]; then
    timeout $((${seconds%.*} + 25)) /usr/bin/python3 "$here/whep-gstreamer-client.py" "http://127.0.0.1:$port/whep" "$seconds" \
        --codec "${viewers#gstreamer-}" --delete >"$out/viewer-1.json" 2>"$out/viewer-1.err" &
    pids+=($!)
    viewers=0
fi
for n in $(seq 1 "$viewers"); do
    timeout $((${seconds%.*} + 20)) /usr/bin/python3 "$here/whep-aiortc-client.py" "http://127.0.0.1:$port/whep" "$seconds" --delete \
        ${SETTLE:+--settle "$SETTLE"} \
        >"$out/viewer-$n.json" 2>"$out/viewer-$n.err" &
    pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
[ -n "${schedule:-}" ] && { kill "$schedule" 2>/dev/null; wait "$schedule" 2>/dev/null; }
[ -n "${UDP_RATE:-}" ] && tc -s class show dev lo >"$out/tc.txt" 2>&1
[ -n "${UDP_DROP:-}" ] && nft list table inet rtenc_drop >>"$out/tc.txt" 2>&1
# Ctrl-C to rtenc itself (timeout would pass a SIGINT to its whole process group, rtenc's second one ending it).
child=$(pgrep -P $server); grandchild=$(pgrep -P "$child" 2>/dev/null)
kill -INT "${grandchild:-$child}" 2>/dev/null
wait $server
echo "rtenc exit $?" >>"$out/rtenc.err"
trap - EXIT
exit $status
