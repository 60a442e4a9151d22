#!/usr/bin/env bash
# Installs the Debian packages rtenc needs, only those that are missing.
# Idempotent: a second run on a machine that has everything does nothing.
set -euo pipefail

packages=(
  # build: libav* and libva headers for the CLibAV shim target
  libavcodec-dev libavformat-dev libavutil-dev libswscale-dev libva-dev libx264-dev pkg-config
  # peers used by tests: ffmpeg/ffprobe and GStreamer (plugins-bad brings openh264enc, with libopenh264-7)
  ffmpeg gstreamer1.0-tools gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav
  # plots of `rtenc bench adapt` (make adapt): SVG and PNG terminals, no X11
  gnuplot-nox
  # SRTP/SRTCP (RFC 3711) for `--srtp`: headers and libsrtp2.pc for the CSRTP shim target
  libsrtp2-dev
  # DTLS 1.2 with DTLS-SRTP (RFC 5764) for WebRTC: OpenSSL 3 headers, libssl and libcrypto for the CDTLS shim target;
  # the openssl tool is the independent DTLS peer of the tests (s_server, s_client)
  libssl-dev openssl
  # WebRTC peers (issue 16): headless Chromium driven by Selenium (the driver pins the browser's version, so both
  # together), aiortc as an independent WHEP client / WHIP server; scripts/capture-webrtc-sdp.sh records their SDP
  chromium chromium-driver python3-selenium python3-aiortc
  # the SFU path (issue 16): rtenc stream → Janus 1.1.2 streaming mountpoint → Chromium (scripts/janus-check.sh)
  janus
  # rtenc serve's end-to-end tests (scripts/whep-serve-check.sh): `ip` sets up lo in the namespace, unshare makes it,
  # pgrep finds rtenc under its timeout
  iproute2 util-linux procps
  # the H.265 WebRTC player (scripts/whep-gstreamer-client.py): webrtcbin needs libnice's GStreamer plugin for ICE;
  # the script drives it through GObject introspection (webrtcbin's and libnice's typelibs, python3-gi)
  gstreamer1.0-nice gir1.2-gst-plugins-bad-1.0 gir1.2-nice-0.1 python3-gi
  # packet loss in the namespace (UDP_DROP in scripts/whep-serve-check.sh): an nftables input rule drops a share of
  # rtenc's datagrams at random, so players NACK and RTX is used (this kernel has no netem, nor tc's gact action)
  nftables
)
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "deps: installing ${missing[*]}" >&2
if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
