#!/bin/bash
# The SFU path (issue 16): rtenc stream → Janus 1.1.2 streaming mountpoint → headless Chromium that joins late.
# Janus gathers no ICE candidates on loopback (it skips every IFF_LOOPBACK interface), so the namespace gets a veth
# pair, jv0 10.77.0.1 (Janus, rtenc) and jv1 10.77.0.2; both ends stay in this namespace. Run as:
#   unshare --net --fork scripts/janus-check.sh RTENC OUTDIR [JOIN_AFTER=4] [WATCH=6]
# rtenc streams testsrc:barcode to the mountpoint (RTP 5004, RTCP 5005: Janus's videortcpport, where rtenc's SRs
# arrive and from where Janus sends the viewer's PLI back) with --join-keyframes off, so its first frame is the only
# IDR not asked for; Chromium joins JOIN_AFTER seconds later and watches WATCH seconds: its picture can only come
# from the IDR its PLI brought through Janus. Writes OUTDIR/viewer.json
# (janus-chromium-check.py's result), OUTDIR/stats.jsonl, OUTDIR/rtenc.out/.err, OUTDIR/janus.log.
# Every process is bounded by timeout and stopped before the script returns.
set -u
rtenc=$1; out=$2; join_after=${3:-4}; watch=${4:-6}
here=$(cd "$(dirname "$0")" && pwd)
if ip -o link show | grep -qv ': lo:'; then echo "refusing to run outside a namespace with only lo" >&2; exit 2; fi
ip link set lo up
ip link add jv0 type veth peer name jv1 || { echo "cannot make a veth pair" >&2; exit 3; }
ip addr add 10.77.0.1/24 dev jv0; ip addr add 10.77.0.2/24 dev jv1
ip link set jv0 up; ip link set jv1 up
janus_bin=$(command -v janus) || { echo "janus is not installed (scripts/deps.sh)" >&2; exit 3; }
lib=/usr/lib/x86_64-linux-gnu/janus
[ -d "$lib" ] || lib=$(dirname "$(dpkg -L janus | grep -m1 '/janus/plugins$')")
conf="$out/janus"; mkdir -p "$conf"
cat >"$conf/janus.jcfg" <<CFG
general: {
    configs_folder = "$conf"
    plugins_folder = "$lib/plugins"
    transports_folder = "$lib/transports"
    events_folder = "$lib/events"
    loggers_folder = "$lib/loggers"
    debug_level = 4
}
media: { }
nat: {
    ice_enforce_list = "jv0"
}
plugins: {
    disable = "libjanus_audiobridge.so,libjanus_duktape.so,libjanus_echotest.so,libjanus_lua.so,libjanus_nosip.so,libjanus_recordplay.so,libjanus_sip.so,libjanus_textroom.so,libjanus_videocall.so,libjanus_videoroom.so,libjanus_voicemail.so"
}
transports: {
    disable = "libjanus_mqtt.so,libjanus_nanomsg.so,libjanus_pfunix.so,libjanus_rabbitmq.so,libjanus_websockets.so"
}
events: { broadcast = false }
loggers: { disable = "libjanus_jsonlog.so" }
CFG
cat >"$conf/janus.transport.http.jcfg" <<CFG
general: { json = "plain" base_path = "/janus" http = true port = 8088 ip = "10.77.0.1" https = false }
admin: { admin_http = false }
CFG
cat >"$conf/janus.plugin.streaming.jcfg" <<CFG
general: { }
rtenc: {
    type = "rtp"
    id = 1
    description = "rtenc stream"
    audio = false
    video = true
    videoport = 5004
    videortcpport = 5005
    videoiface = "10.77.0.1"
    videopt = 96
    videocodec = "h264"
    videofmtp = "profile-level-id=42e01f;packetization-mode=1"
}
CFG
total=$((join_after + watch + 25))
# Janus 1.1.2 can hang in its own shutdown after SIGTERM (measured: still there 20 min later): stop_janus gives it
# 2 s, then SIGKILL; timeout -k does the same if this script is stuck.
timeout -k 2 "$total" "$janus_bin" -F "$conf" -C "$conf/janus.jcfg" -o -L "$out/janus.log" -N >/dev/null 2>&1 & janus=$!
stop_janus() {
    local pid; pid=$(pgrep -P $janus)
    kill ${pid:-$janus} 2>/dev/null
    for _ in $(seq 1 20); do kill -0 ${pid:-$janus} 2>/dev/null || break; sleep 0.1; done
    kill -9 ${pid:-$janus} 2>/dev/null
    wait $janus 2>/dev/null
}
server=
trap 'kill -9 $server 2>/dev/null; stop_janus' EXIT
for _ in $(seq 1 100); do
    (exec 3<>/dev/tcp/10.77.0.1/8088) 2>/dev/null && break
    kill -0 $janus 2>/dev/null || { echo "janus exited" >&2; exit 4; }
    sleep 0.1
done
timeout -k 2 "$total" "$rtenc" stream --to 10.77.0.1:5004 --sdp "$out/stream.sdp" --size 640x360 --bitrate 1500k \
    --join-keyframes off --duration $((join_after + watch + 8)) --stats-json "$out/stats.jsonl" testsrc:barcode >"$out/rtenc.out" 2>"$out/rtenc.err" &
server=$!
sleep "$join_after"
timeout -k 2 $((watch + 40)) /usr/bin/python3 "$here/janus-chromium-check.py" "http://10.77.0.1:8088/janus" 1 "$watch" "$out" \
    >"$out/viewer.json" 2>"$out/viewer.err"
status=$?
child=$(pgrep -P $server); kill -INT "${child:-$server}" 2>/dev/null
wait $server; echo "rtenc exit $?" >>"$out/rtenc.err"
stop_janus
trap - EXIT
exit $status
