#!/bin/bash
# An RFC 8867 case in real time on loopback, analysed like the simulation (issue 17, design note §5a):
#   rtenc stream --cc CONTROLLER → rtenc relay (the case's capacity schedule, 300 ms queue, 50 ms one way,
#   --packet-log) → rtenc receive --feedback transport-cc, the receiver's reports back through the relay;
# then `rtenc bench cc --relay-log` reads the relay's log into the analyser beside a simulation of the same case.
# Run as:
#   scripts/cc-real.sh RTENC OUTDIR [CASE [CONTROLLER [extra rtenc stream options…]]]
# CASE: an RFC 8867 case with one flow and a capacity schedule (default 5.1-short, 30 s; 5.1 takes 100 s).
# Writes OUTDIR/summary.json (the simulator's summary shape: the simulation, then CONTROLLER-real), rate-trace.csv,
# packets.csv (the relay's per-packet log), stats.jsonl (the sender's --stats-json), and each process's output.
# Loopback only; every process is bounded by timeout and stopped before the script returns.
set -u
rtenc=$1; out=$2; case=${3:-5.1-short}; controller=${4:-gcc}; shift $(( $# < 4 ? $# : 4 ))
mkdir -p "$out" || exit 1
# Writes the case's capacity schedule for the relay and prints the case's length in seconds.
seconds=$("$rtenc" bench cc --case "$case" --write-rate-trace "$out/rate-trace.csv") || exit 1

free_port() { python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# Even ports with the next one free for RTCP.
pick_pair() {
    while :; do
        p=$(free_port); p=$((p - p % 2))
        python3 -c "import socket,sys
for q in ($p, $p + 1):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('127.0.0.1', q))" 2>/dev/null && { echo $p; return; }
    done
}
receive_port=$(pick_pair); relay_port=$(pick_pair)
while [ "$relay_port" = "$receive_port" ]; do relay_port=$(pick_pair); done

timeout $((seconds + 20)) "$rtenc" receive --port "$receive_port" --bind 127.0.0.1 --feedback transport-cc \
    --timeout $((seconds + 6)) --quiet >"$out/receive.json" 2>"$out/receive.err" &
receiver=$!
# The relay's clock (and the rate trace) starts now; the stream follows within a second or two.
timeout $((seconds + 20)) "$rtenc" relay --listen "$relay_port" --bind 127.0.0.1 --to "127.0.0.1:$receive_port" \
    --rate-trace "$out/rate-trace.csv" --queue-ms 300 --delay 50 --packet-log "$out/packets.csv" --seed 1 \
    --duration "$seconds" --quiet >"$out/relay.json" 2>"$out/relay.err" &
relay=$!
trap 'kill $receiver $relay 2>/dev/null; wait $receiver $relay 2>/dev/null' EXIT
sleep 0.5
# R_max 1.5 Mb/s (the encoder's ceiling), R_min 150 kb/s; noise, so the encoder can fill any target (a test pattern
# compresses to ~80 kb/s and leaves the link idle); 640x360 keeps x264 light on a shared machine.
timeout $((seconds + 20)) "$rtenc" stream testsrc:noise --size 640x360 --bitrate 1500k --min-bitrate 150k --cc "$controller" \
    --to "127.0.0.1:$relay_port" --sdp "$out/stream.sdp" --duration "$((seconds - 1))" --stats-json "$out/stats.jsonl" \
    --quiet "$@" >"$out/stream.out" 2>"$out/stream.err"
stream_status=$?
wait $relay; relay_status=$?
wait $receiver; receive_status=$?
trap - EXIT
if [ $stream_status != 0 ] || [ $relay_status != 0 ] || [ $receive_status != 0 ]; then
    echo "cc-real.sh: stream $stream_status, relay $relay_status, receive $receive_status (see $out/*.err)" >&2
    exit 1
fi
"$rtenc" bench cc --case "$case" --controllers "$controller" --relay-log "$out/packets.csv" --json "$out/summary.json" \
    --out "$out/analysis" --no-plot
