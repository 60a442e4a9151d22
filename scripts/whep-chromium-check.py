#!/usr/bin/python3
"""Headless Chromium (Debian chromium + chromium-driver, Selenium) opens rtenc serve's player page and reports what it
measured: `window.rtenc` (getStats summary, barcode latencies, page errors) after SECONDS.

    whep-chromium-check.py URL SECONDS OUTDIR

Prints one JSON object: stats (the page's last getStats summary), latency_ms (median/p90 over the frames after the
first second), frames_read, first_frame_ms (from navigation to the first barcode read: POST, ICE, DTLS and the first
IDR), post_to_first_frame_ms (the page's own count, from its POST to the first frame painted), errors, state,
breakdown_ms (the medians of the page's per-frame split over the same frames: to_receive — barcode to the frame's last
packet received —, receive_to_present, present_to_callback; and Chromium's per-frame jitter buffer, decode,
processing and assembly times from getStats); saves OUTDIR/chromium.png. Exit 0 when the page decoded frames without
errors.
"""
import json, os, sys, time

FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--autoplay-policy=no-user-gesture-required",
         # loopback ICE in an lo-only namespace needs both (design/webrtc.md §1.1, runs 2–3)
         "--allow-loopback-in-peer-connection", "--disable-features=WebRtcHideLocalIpsWithMdns"]

def main(url, seconds, outdir):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/lib/chromium/chromium"  # not the /usr/bin wrapper (trap 14)
    for flag in FLAGS:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    result = {}
    try:
        started = time.time()
        driver.get(url)
        deadline = started + seconds
        while time.time() < deadline:
            count = driver.execute_script("return window.rtenc ? window.rtenc.latencies.length : 0")
            if count and "first_frame_ms" not in result:
                result["first_frame_ms"] = round((time.time() - started) * 1000)
            time.sleep(0.05 if "first_frame_ms" not in result else 0.5)
        time.sleep(1.1)  # one more getStats round
        page = driver.execute_script(
            "const r = window.rtenc; return {stats: r.stats, latencies: r.latencies, errors: r.errors, state: r.state, resource: r.resource, "
            "post_to_first_frame_ms: r.firstFrameAfterPost, split: r.split}")
        latencies = page["latencies"]
        settled = latencies[30:] if len(latencies) > 60 else latencies  # past the first second (start-up)
        if settled:
            ordered = sorted(settled)
            result["latency_ms"] = {"median": ordered[len(ordered) // 2], "p90": ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]}
        split = page.get("split") or []
        split = split[30:] if len(split) > 60 else split
        breakdown = {}
        for key, name in (("toReceive", "to_receive"), ("receiveToPresent", "receive_to_present"), ("presentToCallback", "present_to_callback")):
            values = sorted(f[key] for f in split if f.get(key) is not None)
            if values:
                breakdown[name] = round(values[len(values) // 2], 2)
        for key, value in ((page["stats"] or {}).get("perFrameMs") or {}).items():
            breakdown["chromium_" + key] = value
        result["breakdown_ms"] = breakdown
        result.update(stats=page["stats"], frames_read=len(latencies), errors=page["errors"], state=page["state"], resource=page["resource"],
                      post_to_first_frame_ms=page.get("post_to_first_frame_ms"))
        driver.save_screenshot(os.path.join(outdir, "chromium.png"))
    finally:
        driver.quit()
    return result

if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    out = main(sys.argv[1], float(sys.argv[2]), sys.argv[3])
    print(json.dumps(out), flush=True)
    ok = out.get("stats") and (out["stats"].get("framesDecoded") or 0) > 0 and not out.get("errors")
    sys.exit(0 if ok else 1)
