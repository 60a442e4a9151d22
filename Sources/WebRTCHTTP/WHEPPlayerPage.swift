/// The page `GET /` serves: a WHEP client a person opens in a browser (and the headless Chromium test drives). It
/// offers to receive one video track, posts the offer to `/whep` on the same origin, plays the answer's stream, and
/// shows `getStats` once a second. When the stream carries the test pattern's clock barcode
/// (`rtenc serve testsrc:barcode`), it reads the barcode off every painted frame (`requestVideoFrameCallback`, a
/// 1-row-high canvas) and shows glass-to-glass latency — the same geometry and thresholds as `ClockBarcode`.
/// `window.rtenc` holds what it measured for scripts: `stats` (the last getStats summary), `latencies` (ms),
/// `errors`, `resource` (the session's Location), and where the latency went: `split` (per barcoded frame, from the
/// frame callback's metadata: `toReceive` — barcode to the frame's last packet received, everything rtenc and the
/// network do —, `receiveToPresent` — jitter buffer, decode, handing to the compositor —, `presentToCallback`) and,
/// in `stats.perFrameMs`, Chromium's own counters per frame since the first second (jitter buffer, decode,
/// processing, assembly).
public enum WHEPPlayerPage {
    public static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>rtenc — WHEP player</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
 body { font: 14px system-ui, sans-serif; margin: 1em; background: #111; color: #ddd; }
 video { width: 100%; max-width: 1280px; background: #000; display: block; }
 pre { background: #222; padding: .5em; max-width: 1280px; white-space: pre-wrap; }
 .error { color: #f66; }
</style>
</head>
<body>
<video id="video" autoplay muted playsinline></video>
<pre id="status">connecting…</pre>
<pre id="stats"></pre>
<script>
"use strict";
// postedAt: performance.now() at the POST; firstFrameAfterPost: ms from it to the first frame painted.
const rtenc = window.rtenc = { stats: null, latencies: [], errors: [], resource: null, state: "new", postedAt: null,
                               firstFrameAfterPost: null, split: [], receiverBase: null };
const statusBox = document.getElementById("status"), statsBox = document.getElementById("stats");
const video = document.getElementById("video");
function fail(message) {
  rtenc.errors.push(String(message));
  statusBox.textContent = "error: " + message;
  statusBox.className = "error";
}
window.addEventListener("error", e => fail(e.message));
window.addEventListener("unhandledrejection", e => fail(e.reason));

// ClockBarcode: 24 blocks along the top, most significant bit left; block 20 px when the picture is ≥ 480 wide.
const canvas = document.createElement("canvas");
const ctx = canvas.getContext("2d", { willReadFrequently: true });
function readBarcode() {
  const width = video.videoWidth, height = video.videoHeight;
  if (width < 48 || height < 2) return null;
  const block = width >= 480 ? 20 : Math.max(2, Math.floor(width / 24) & ~1);
  canvas.width = width; canvas.height = block;
  ctx.drawImage(video, 0, 0, width, block, 0, 0, width, block);
  const pixels = ctx.getImageData(0, 0, width, block).data;
  const inset = Math.floor(block / 4), side = Math.max(1, block - 2 * inset);
  // Limited-range luma 235 and 60 come out near 255 and 51 in RGB: midpoint 153, the same ±40 margin.
  let code = 0;
  for (let bit = 0; bit < 24; bit++) {
    let sum = 0;
    for (let y = inset; y < inset + side; y++)
      for (let x = bit * block + inset; x < bit * block + inset + side; x++) {
        const i = (y * width + x) * 4;
        sum += (pixels[i] + pixels[i + 1] + pixels[i + 2]) / 3;
      }
    const mean = sum / (side * side);
    if (Math.abs(mean - 153) < 40) return null;
    code = code * 2 + (mean > 153 ? 1 : 0);
  }
  return code;
}
function unwrap(code, reference) {
  const modulus = 1 << 24;
  let candidate = reference - (reference % modulus) + code;
  if (candidate - reference > modulus / 2) candidate -= modulus;
  if (reference - candidate > modulus / 2) candidate += modulus;
  return candidate;
}
function onFrame(callbackTime, metadata) {
  if (rtenc.firstFrameAfterPost === null && rtenc.postedAt !== null)
    rtenc.firstFrameAfterPost = Math.round(performance.now() - rtenc.postedAt);
  const code = readBarcode();
  if (code !== null) {
    const now = Date.now(), nowPerf = performance.now();
    const made = unwrap(code, now);
    rtenc.latencies.push(now - made);
    if (rtenc.latencies.length > 100000) rtenc.latencies.shift();
    // The metadata's times are on the performance clock: placed on the wall clock through this moment's offset.
    if (metadata && metadata.receiveTime !== undefined && metadata.presentationTime !== undefined) {
      const wall = t => now - (nowPerf - t);
      rtenc.split.push({ toReceive: wall(metadata.receiveTime) - made,
                         receiveToPresent: metadata.presentationTime - metadata.receiveTime,
                         presentToCallback: nowPerf - metadata.presentationTime });
      if (rtenc.split.length > 100000) rtenc.split.shift();
    }
  }
  video.requestVideoFrameCallback(onFrame);
}
if ("requestVideoFrameCallback" in HTMLVideoElement.prototype) video.requestVideoFrameCallback(onFrame);

function percentile(values, p) {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

async function showStats(pc) {
  const report = await pc.getStats();
  const summary = {};
  const byId = new Map();
  report.forEach(s => byId.set(s.id, s));
  report.forEach(s => {
    if (s.type === "inbound-rtp" && s.kind === "video") {
      // Chromium's time per frame, from the first second on (start-up left out): jitter buffer (first packet in to
      // the frame out to the decoder), decode, processing (first packet in to decoded), assembly (first to last
      // packet of a frame of several packets).
      const totals = { jitterBuffer: s.jitterBufferDelay, emitted: s.jitterBufferEmittedCount, decode: s.totalDecodeTime,
                       processing: s.totalProcessingDelay, decoded: s.framesDecoded, assembly: s.totalAssemblyTime,
                       assembled: s.framesAssembledFromMultiplePackets, target: s.jitterBufferTargetDelay };
      if (rtenc.receiverBase === null && rtenc.latencies.length >= 30) rtenc.receiverBase = totals;
      const base = rtenc.receiverBase;
      const perFrame = (time, count) => {
        if (!base || totals[time] === undefined || totals[count] === undefined) return null;
        const frames = totals[count] - base[count];
        return frames > 0 ? Math.round((totals[time] - base[time]) * 1e5 / frames) / 100 : null;
      };
      summary.perFrameMs = { jitterBuffer: perFrame("jitterBuffer", "emitted"), decode: perFrame("decode", "decoded"),
                             processing: perFrame("processing", "decoded"), assembly: perFrame("assembly", "assembled"),
                             jitterBufferTarget: perFrame("target", "emitted") };
      Object.assign(summary, {
        framesDecoded: s.framesDecoded, framesReceived: s.framesReceived, framesDropped: s.framesDropped,
        framesPerSecond: s.framesPerSecond, frameWidth: s.frameWidth, frameHeight: s.frameHeight,
        bytesReceived: s.bytesReceived, packetsLost: s.packetsLost, jitter: s.jitter,
        nackCount: s.nackCount, pliCount: s.pliCount, firCount: s.firCount, keyFramesDecoded: s.keyFramesDecoded,
        retransmittedPacketsReceived: s.retransmittedPacketsReceived, retransmittedBytesReceived: s.retransmittedBytesReceived,
        codec: byId.get(s.codecId)?.mimeType, fmtp: byId.get(s.codecId)?.sdpFmtpLine,
      });
    }
    if (s.type === "transport") {
      Object.assign(summary, { dtlsState: s.dtlsState, tlsVersion: s.tlsVersion, dtlsCipher: s.dtlsCipher,
                               srtpCipher: s.srtpCipher, iceState: s.iceState });
      const pair = byId.get(s.selectedCandidatePairId);
      if (pair) summary.currentRoundTripTime = pair.currentRoundTripTime;
    }
  });
  if (rtenc.stats && summary.bytesReceived !== undefined)
    summary.kbps = Math.round((summary.bytesReceived - (rtenc.stats.bytesReceived || 0)) * 8 / 1000);
  summary.latencyMs = { frames: rtenc.latencies.length, p50: percentile(rtenc.latencies, 0.5),
                        p90: percentile(rtenc.latencies, 0.9) };
  rtenc.stats = summary;
  statsBox.textContent = JSON.stringify(summary, null, 1);
}

async function start() {
  const pc = new RTCPeerConnection();
  rtenc.pc = pc;
  const transceiver = pc.addTransceiver("video", { direction: "recvonly" });
  const capabilities = RTCRtpReceiver.getCapabilities && RTCRtpReceiver.getCapabilities("video");
  if (capabilities && transceiver.setCodecPreferences) {
    // rtx kept: rtenc answers NACKs and sends its congestion controller's probes on an RTX stream (RFC 4588).
    const wanted = capabilities.codecs.filter(c => /^video\/(h264|h265|rtx)$/i.test(c.mimeType));
    if (wanted.length) transceiver.setCodecPreferences(wanted);
  }
  pc.ontrack = event => { video.srcObject = new MediaStream([event.track]); };
  pc.onconnectionstatechange = () => {
    rtenc.state = pc.connectionState;
    statusBox.textContent = "connection: " + pc.connectionState + (rtenc.resource ? " (" + rtenc.resource + ")" : "");
  };
  await pc.setLocalDescription(await pc.createOffer());
  rtenc.postedAt = performance.now();
  const response = await fetch(new URL("whep", location.href), {
    method: "POST", headers: { "Content-Type": "application/sdp" }, body: pc.localDescription.sdp });
  if (response.status !== 201) throw new Error("POST /whep: " + response.status + " " + (await response.text()).trim());
  rtenc.resource = new URL(response.headers.get("Location"), location.href).href;
  await pc.setRemoteDescription({ type: "answer", sdp: await response.text() });
  setInterval(() => showStats(pc).catch(fail), 1000);
  window.addEventListener("pagehide", () => {
    fetch(rtenc.resource, { method: "DELETE", keepalive: true });
    pc.close();
  });
}
start().catch(fail);
</script>
</body>
</html>
"""#
}
