#!/usr/bin/env bash
# Records the real SDP the WebRTC tests parse (Tests/WebRTCTests/Fixtures, named after their producer):
# headless Chromium's offers for one video transceiver, and aiortc's answer as a WHIP server to a publisher's offer.
# It also hands rtenc's recorded WHEP answer back to Chromium, which must take it (and receive H.264 with it); the
# test ChromiumAnswerTests does the same with answers it builds.
# Everything runs in a network namespace of its own with only `lo` (127.0.0.1, plus 127.0.0.2 because aioice skips
# exactly 127.0.0.1), each process under a timeout; nothing leaves the machine.
#
#   scripts/capture-webrtc-sdp.sh [OUTPUT_DIR]       (default Tests/WebRTCTests/Fixtures; needs root for unshare)
#   WHIP_OFFER=file.sdp scripts/capture-webrtc-sdp.sh   also records aiortc's answer to that offer (default: rtenc's
#                                                     WHIP offer fixture, if present)
# Needs: chromium chromium-driver python3-selenium python3-aiortc (scripts/deps.sh installs them).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(cd "${1:-$here/../Tests/WebRTCTests/Fixtures}" && pwd)
offer=${WHIP_OFFER:-$out/rtenc-whip-offer.sdp}
answer=$out/rtenc-whep-answer-to-chromium-156.sdp
version=$(/usr/lib/chromium/chromium --version | sed -E 's/.* ([0-9]+)\..*/\1/')
[[ $version =~ ^[0-9]+$ ]] || { echo "capture-webrtc-sdp: cannot read Chromium's version" >&2; exit 1; }

inner() {
  ip link set lo up
  ip addr add 127.0.0.2/8 dev lo
  for mode in whep-recvonly-h264 recvonly-default sendonly-h264; do
    timeout 60 /usr/bin/python3 "$here/webrtc-sdp-capture.py" chromium "$mode" >"$out/chromium-$version-$mode.sdp"
    echo "capture-webrtc-sdp: $out/chromium-$version-$mode.sdp" >&2
  done
  if [[ -f $answer ]]; then
    timeout 60 /usr/bin/python3 "$here/webrtc-sdp-capture.py" chromium-accepts "$answer"
    echo "capture-webrtc-sdp: Chromium $version takes $answer" >&2
  fi
  aiortc=$(/usr/bin/python3 -c 'import aiortc; print(aiortc.__version__)')
  timeout 30 /usr/bin/python3 "$here/webrtc-sdp-capture.py" aiortc-answer "$out/chromium-$version-sendonly-h264.sdp" \
    >"$out/aiortc-$aiortc-whip-answer-to-chromium-$version.sdp"
  echo "capture-webrtc-sdp: $out/aiortc-$aiortc-whip-answer-to-chromium-$version.sdp" >&2
  if [[ -f $offer ]]; then
    timeout 30 /usr/bin/python3 "$here/webrtc-sdp-capture.py" aiortc-answer "$offer" \
      >"$out/aiortc-$aiortc-whip-answer-to-rtenc.sdp"
    echo "capture-webrtc-sdp: $out/aiortc-$aiortc-whip-answer-to-rtenc.sdp" >&2
  fi
}
export -f inner
export here out offer answer version
timeout 300 unshare --net --fork bash -euo pipefail -c inner
