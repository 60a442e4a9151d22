#!/usr/bin/python3
"""Headless Chromium joins a Janus streaming mountpoint (scripts/janus-check.sh) and reports when it decoded.

    janus-chromium-check.py JANUS_URL MOUNTPOINT_ID SECONDS OUTDIR

The Janus HTTP API is driven from here (create, attach janus.plugin.streaming, watch → Janus's offer; start with the
page's answer); the page only holds the RTCPeerConnection (recvonly, non-trickle answer), plays the track and reads
the clock barcode off every painted frame with rtenc's player page's own reader (read from WHEPPlayerPage.swift).
Prints one JSON object: joined (epoch ms of the watch request), first_frame_after_join_ms (watch → first painted
frame whose barcode reads; also from start), frames_read, latency_ms (median/p90), stats (framesDecoded,
keyFramesDecoded, pliCount, codec), errors. Exit 0 when the page decoded frames.
"""
import json, os, sys, time, urllib.request

FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--autoplay-policy=no-user-gesture-required",
         # Janus offers its veth address; Chromium's own must be plain IPs, not mDNS names Janus cannot resolve
         "--disable-features=WebRtcHideLocalIpsWithMdns"]

PAGE = r"""<!doctype html><html><body><video id=v autoplay muted playsinline></video><script>
window.probe = {latencies: [], firstFrame: null, errors: [], stats: {}};
window.addEventListener("error", e => probe.errors.push(String(e.message)));
const video = document.getElementById("v");
%BARCODE_READER%
function onFrame() {
  const code = readBarcode();
  if (code !== null) {
    const now = Date.now();
    if (probe.firstFrame === null) probe.firstFrame = now;
    probe.latencies.push(((now & 0xFFFFFF) - code + 0x1000000) % 0x1000000);
  }
  video.requestVideoFrameCallback(onFrame);
}
video.requestVideoFrameCallback(onFrame);
window.answer = async function(offer) {
  const pc = window.pc = new RTCPeerConnection();
  pc.ontrack = e => { video.srcObject = new MediaStream([e.track]); video.play().catch(e => probe.errors.push(String(e))); };
  await pc.setRemoteDescription({type: "offer", sdp: offer});
  await pc.setLocalDescription(await pc.createAnswer());
  await new Promise(resolve => {
    if (pc.iceGatheringState === "complete") return resolve();
    pc.onicegatheringstatechange = () => pc.iceGatheringState === "complete" && resolve();
    setTimeout(resolve, 2000);
  });
  setInterval(async () => {
    const report = await pc.getStats();
    report.forEach(s => {
      if (s.type === "inbound-rtp" && s.kind === "video")
        Object.assign(probe.stats, {framesDecoded: s.framesDecoded, keyFramesDecoded: s.keyFramesDecoded, pliCount: s.pliCount,
                                    frameWidth: s.frameWidth, frameHeight: s.frameHeight, codecId: s.codecId});
      if (s.type === "codec" && s.mimeType.startsWith("video/")) probe.stats.codec = s.mimeType;
    });
    probe.stats.connection = pc.connectionState;
  }, 250);
  return pc.localDescription.sdp;
};
</script></body></html>"""

def barcode_reader():
    """The clock barcode reader of rtenc's own player page (canvas, ctx, readBarcode), taken from its source so the
    two never differ."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    source = open(os.path.join(root, "Sources", "WebRTCHTTP", "WHEPPlayerPage.swift")).read()
    return source[source.index('const canvas = document.createElement("canvas");'):source.index("function unwrap(")]

def janus(url, body):
    body = dict(body, transaction=os.urandom(6).hex())
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())

def event(url, deadline):
    """Long-polls the session for the plugin's next event with a JSEP (or an error)."""
    while time.time() < deadline:
        with urllib.request.urlopen(url + "?maxev=1&rid=%d" % int(time.time() * 1000), timeout=35) as response:
            message = json.loads(response.read())
        for m in message if isinstance(message, list) else [message]:
            if m.get("janus") == "event":
                return m
    raise TimeoutError("no event from Janus")

def main(base, mountpoint, seconds, outdir):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/lib/chromium/chromium"
    for flag in FLAGS:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(10)
    result = {}
    try:
        page = PAGE.replace("%BARCODE_READER%", barcode_reader())
        driver.get("data:text/html;base64," + __import__("base64").b64encode(page.encode()).decode())
        session = janus(base, {"janus": "create"})["data"]["id"]
        handle = janus(f"{base}/{session}", {"janus": "attach", "plugin": "janus.plugin.streaming"})["data"]["id"]
        joined = time.time()
        result["joined"] = int(joined * 1000)
        janus(f"{base}/{session}/{handle}", {"janus": "message", "body": {"request": "watch", "id": mountpoint}})
        offer = event(f"{base}/{session}", joined + 10)
        if "jsep" not in offer:
            result["errors"] = ["Janus answered watch without an offer: " + json.dumps(offer)]
            return result
        result["offer_has_candidate"] = "a=candidate" in offer["jsep"]["sdp"]
        answer = driver.execute_async_script("const done = arguments[arguments.length - 1]; window.answer(arguments[0]).then(done, e => done('ERROR ' + e));",
                                             offer["jsep"]["sdp"])
        if answer.startswith("ERROR"):
            result["errors"] = [answer]
            return result
        started = time.time()
        janus(f"{base}/{session}/{handle}", {"janus": "message", "body": {"request": "start"}, "jsep": {"type": "answer", "sdp": answer}})
        deadline = joined + seconds
        while time.time() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        page = driver.execute_script("return window.probe")
        result.update(stats=page["stats"], errors=page["errors"], frames_read=len(page["latencies"]))
        if page["firstFrame"]:
            result["first_frame_after_join_ms"] = page["firstFrame"] - result["joined"]
            result["first_frame_after_start_ms"] = page["firstFrame"] - int(started * 1000)
        latencies = sorted(page["latencies"])
        if latencies:
            result["latency_ms"] = {"median": latencies[len(latencies) // 2], "p90": latencies[int(len(latencies) * 0.9)]}
        driver.save_screenshot(os.path.join(outdir, "chromium.png"))
        try:
            janus(f"{base}/{session}", {"janus": "destroy"})
        except Exception:
            pass
    finally:
        driver.quit()
    return result

if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    out = main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4])
    print(json.dumps(out), flush=True)
    sys.exit(0 if out.get("frames_read", 0) > 0 and not out.get("errors") else 1)
