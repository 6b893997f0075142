#!/usr/bin/env python3
"""Measures the two ways the browser viewer's page could be fed over loopback, in Debian's
headless Chromium (Tools/bench.sh runs it; README "Viewer in the browser" quotes it):

- raw: RGBA bytes, drawn with putImageData (what the page does);
- jpeg: the host's JPEG forwarded, decoded with createImageBitmap and drawn with drawImage.

For a full 1920x1080 picture and for a 256x256 rect, with a photo-like picture (gradients and
noise, which JPEG at quality 75 shrinks about tenfold): per draw, p50 and p95 in ms, and the bytes
each needs on the WebSocket. Also whether the decoded JPEG equals what was encoded (it cannot:
JPEG is lossy, and Chromium's decoder is not the controller's, so forwarding JPEG could never make
the canvas pixel-exact on its own).

Prints one JSON line. Usage: loopback-encodings.py [ROUNDS]
"""
import json
import os
import sys

from playwright.sync_api import sync_playwright

SCRIPT = """
async ([width, height, rounds]) => {
  const source = new OffscreenCanvas(width, height), s = source.getContext("2d");
  const gradient = s.createLinearGradient(0, 0, width, height);
  gradient.addColorStop(0, "#203060"); gradient.addColorStop(0.5, "#c08040"); gradient.addColorStop(1, "#40a070");
  s.fillStyle = gradient; s.fillRect(0, 0, width, height);
  const noise = s.getImageData(0, 0, width, height);
  let seed = 12345;
  for (let i = 0; i < noise.data.length; i += 4) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const n = (seed >>> 24) % 48 - 24;
    noise.data[i] += n; noise.data[i + 1] += n; noise.data[i + 2] += n;
  }
  s.putImageData(noise, 0, 0);
  const raw = s.getImageData(0, 0, width, height).data;
  const jpeg = await source.convertToBlob({ type: "image/jpeg", quality: 0.75 });
  const jpegBytes = new Uint8Array(await jpeg.arrayBuffer());

  const target = document.createElement("canvas");
  target.width = width; target.height = height;
  document.body.append(target);
  const t = target.getContext("2d", { alpha: false });
  const percentile = (values, p) => { const v = [...values].sort((a, b) => a - b); return v[Math.min(v.length - 1, Math.floor(p * v.length))]; };
  const flush = () => t.getImageData(0, 0, 1, 1);  // makes the draw happen before the clock stops

  const rawTimes = [], jpegTimes = [];
  for (let round = 0; round < rounds; round++) {
    // As the page does: the message's bytes become an ImageData, put at its place.
    const message = raw.slice();
    let start = performance.now();
    t.putImageData(new ImageData(new Uint8ClampedArray(message.buffer), width, height), 0, 0);
    flush();
    rawTimes.push(performance.now() - start);

    const blob = new Blob([jpegBytes.slice()], { type: "image/jpeg" });
    start = performance.now();
    const bitmap = await createImageBitmap(blob);
    t.drawImage(bitmap, 0, 0);
    bitmap.close();
    flush();
    jpegTimes.push(performance.now() - start);
  }
  const drawn = t.getImageData(0, 0, width, height).data;
  let differing = 0;
  for (let i = 0; i < drawn.length; i += 4) {
    if (drawn[i] !== raw[i] || drawn[i + 1] !== raw[i + 1] || drawn[i + 2] !== raw[i + 2]) differing++;
  }
  target.remove();
  return { width, height, rounds, rawBytes: raw.length, jpegBytes: jpegBytes.length,
           rawP50: percentile(rawTimes, 0.5), rawP95: percentile(rawTimes, 0.95),
           jpegP50: percentile(jpegTimes, 0.5), jpegP95: percentile(jpegTimes, 0.95),
           jpegPixelsNotExact: differing / (width * height) };
}
"""


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    executable = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True,
                                             args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        page = browser.new_page()
        page.set_content("<!doctype html><body></body>")
        results = [page.evaluate(SCRIPT, [w, h, rounds]) for (w, h) in [(1920, 1080), (256, 256)]]
        browser.close()
    for result in results:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
