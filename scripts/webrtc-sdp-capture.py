#!/usr/bin/python3
"""Prints a real WebRTC SDP, for the fixtures of Tests/WebRTCTests (run through capture-webrtc-sdp.sh, which puts it
in a network namespace of its own).

  webrtc-sdp-capture.py chromium MODE     the offer headless Chromium makes for one video transceiver:
      whep-recvonly-h264   recvonly, codec preferences H.264 only (what a WHEP player page offers)
      recvonly-default     recvonly, Chromium's default codec list
      sendonly-h264        sendonly (no track), H.264 only: the shape of a WHIP publisher's offer
  webrtc-sdp-capture.py aiortc-answer FILE   aiortc's answer, as a WHIP server would give it, to the offer in FILE
      (recvonly video, H.264 preferred)
  webrtc-sdp-capture.py chromium-accepts FILE...   for each FILE: makes the whep-recvonly-h264 offer again, hands
      Chromium the answer in FILE (rtenc's, built for that offer's payload types) and prints what Chromium made of it
      as one line of JSON; exit 1 if Chromium refuses one or does not receive H.264 with it
"""
import asyncio
import json
import sys

CHROMIUM_FLAGS = [  # design/webrtc.md §7.3: an lo-only namespace needs the loopback and no-mDNS flags
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--allow-loopback-in-peer-connection", "--disable-features=WebRtcHideLocalIpsWithMdns",
]

OFFER_JS = """
const [direction, h264Only, done] = arguments;
(async () => {
  const pc = new RTCPeerConnection();
  const tr = pc.addTransceiver('video', {direction});
  if (h264Only) {
    const caps = (direction === 'recvonly' ? RTCRtpReceiver : RTCRtpSender).getCapabilities('video').codecs;
    tr.setCodecPreferences(caps.filter(c => c.mimeType === 'video/H264'));
  }
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise(r => {
    if (pc.iceGatheringState === 'complete') r();
    pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') r(); };
    setTimeout(r, 3000);
  });
  done({sdp: pc.localDescription.sdp});
})().catch(e => done({error: String(e)}));
"""

ACCEPT_JS = """
const [answer, done] = arguments;
(async () => {
  const pc = new RTCPeerConnection();
  const tr = pc.addTransceiver('video', {direction: 'recvonly'});
  tr.setCodecPreferences(RTCRtpReceiver.getCapabilities('video').codecs.filter(c => c.mimeType === 'video/H264'));
  await pc.setLocalDescription(await pc.createOffer());
  await pc.setRemoteDescription({type: 'answer', sdp: answer});
  const codecs = tr.receiver.getParameters().codecs.map(c => ({payloadType: c.payloadType, mimeType: c.mimeType,
                                                                sdpFmtpLine: c.sdpFmtpLine}));
  const headerExtensions = tr.receiver.getParameters().headerExtensions.map(e => e.uri);
  done({signalingState: pc.signalingState, currentDirection: tr.currentDirection, mid: tr.mid, codecs, headerExtensions});
  pc.close();
})().catch(e => done({error: String(e)}));
"""

MODES = {
    "whep-recvonly-h264": ("recvonly", True),
    "recvonly-default": ("recvonly", False),
    "sendonly-h264": ("sendonly", True),
}


def chromium(script, *argument_lists):
    """Runs `script` once per argument list in one headless Chromium; the results in order."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/lib/chromium/chromium"  # not the /usr/bin wrapper (trap 14)
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get("data:text/html,<title>offer</title>")
        driver.set_script_timeout(20)
        return [driver.execute_async_script(script, *arguments) for arguments in argument_lists]
    finally:
        driver.quit()


def chromium_offer(mode):
    direction, h264_only = MODES[mode]
    [result] = chromium(OFFER_JS, (direction, h264_only))
    if "error" in result:
        sys.exit("webrtc-sdp-capture: Chromium: " + result["error"])
    sys.stdout.buffer.write(result["sdp"].encode())


def chromium_accepts(paths):
    answers = []
    for path in paths:
        with open(path, newline="") as f:
            answers.append((f.read(),))
    refused = []
    for path, result in zip(paths, chromium(ACCEPT_JS, *answers)):
        print(json.dumps(result), flush=True)
        if not (result.get("signalingState") == "stable" and result.get("currentDirection") == "recvonly"
                and any(c["mimeType"] == "video/H264" for c in result.get("codecs", []))):
            refused.append(path)
    if refused:
        sys.exit("webrtc-sdp-capture: Chromium did not take the answer in " + ", ".join(refused))


async def aiortc_answer(path):
    from aiortc import RTCPeerConnection, RTCSessionDescription
    from aiortc.rtcrtpreceiver import RTCRtpReceiver
    with open(path, newline="") as f:
        offer = f.read()
    # aiortc starts connecting after setLocalDescription; closing at once makes that task fail, which is noise here.
    asyncio.get_running_loop().set_exception_handler(lambda loop, context: None)
    pc = RTCPeerConnection()
    await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
    for transceiver in pc.getTransceivers():
        if transceiver.kind == "video":
            transceiver.direction = "recvonly"
            codecs = RTCRtpReceiver.getCapabilities("video").codecs
            transceiver.setCodecPreferences([c for c in codecs if c.mimeType == "video/H264"])
    await pc.setLocalDescription(await pc.createAnswer())  # aiortc gathers before it returns (no trickle)
    sys.stdout.buffer.write(pc.localDescription.sdp.encode())
    await pc.close()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "chromium" and sys.argv[2] in MODES:
        chromium_offer(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "chromium-accepts":
        chromium_accepts(sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "aiortc-answer":
        asyncio.run(aiortc_answer(sys.argv[2]))
    else:
        sys.exit(__doc__)
