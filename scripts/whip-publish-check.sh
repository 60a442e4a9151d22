#!/bin/bash
# rtenc stream --whip against an aiortc WHIP server (or, with --server gstreamer, GStreamer's webrtcbin:
# whip-gstreamer-server.py), inside a network namespace of its own (only lo, plus the 127.0.0.2/8 alias aioice needs:
# it skips exactly 127.0.0.1 when gathering). Run as:
#   unshare --net --fork scripts/whip-publish-check.sh RTENC OUTDIR SECONDS [--server gstreamer] [server options…] \
#       -- [rtenc stream options…]
# Server options: aiortc's --token T, --remb BPS; webrtcbin's --codec h265|h264.
# Writes OUTDIR/server.json (the server script's result), OUTDIR/stats.jsonl, OUTDIR/rtenc.out/.err.
# Every process is bounded by timeout and stopped before the script returns.
set -u
rtenc=$1; out=$2; seconds=$3; shift 3
server_args=()
server_script=whip-aiortc-server.py
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    if [ "$1" = --server ] && [ "${2:-}" = gstreamer ]; then server_script=whip-gstreamer-server.py; shift 2; continue; fi
    server_args+=("$1"); shift
done
[ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")" && pwd)
if ip -o link show | grep -qv ': lo:'; then echo "refusing to run outside a namespace with only lo" >&2; exit 2; fi
ip link set lo up
ip addr add 127.0.0.2/8 dev lo 2>/dev/null
port=8090
token=()
for ((i = 0; i < ${#server_args[@]}; i++)); do
    [ "${server_args[$i]}" = --token ] && token=(--whip-token "${server_args[$((i + 1))]}")
done
timeout $((${seconds%.*} + 30)) /usr/bin/python3 "$here/$server_script" $port $((${seconds%.*} + 20)) "$out/server.json" \
    "${server_args[@]}" >"$out/server.out" 2>"$out/server.err" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null' EXIT
for _ in $(seq 1 100); do
    grep -q listening "$out/server.out" 2>/dev/null && break
    kill -0 $server 2>/dev/null || break
    sleep 0.1
done
timeout $((${seconds%.*} + 15)) "$rtenc" stream --whip "http://127.0.0.1:$port/whip" "${token[@]}" --duration "$seconds" \
    --stats-json "$out/stats.jsonl" "$@" >"$out/rtenc.out" 2>"$out/rtenc.err"
echo "rtenc exit $?" >>"$out/rtenc.err"
# The server exits on the DELETE (or after its own time limit).
wait $server
echo "server exit $?" >>"$out/server.err"
trap - EXIT
