// The remote screen on a canvas: the picture zrc-ctl sends is the canvas's backing store, drawn
// pixel for pixel; the canvas's CSS size decides fit, 1:1 and zoom. Pointer positions map back to
// remote pixels here, in the page, with no round trip.

export const maximumZoom = 16;

/**
 * The remote pixel under client point (x, y) of an image drawn in `rect` (the canvas's client
 * rectangle) showing a `screen` of remote pixels: the floor of the continuous position, clamped to
 * the screen; null outside the image unless `clamp`. The Swift viewport's rule, checked against
 * one table of cases the Swift tests generate (ViewerInBrowserMappingTests).
 */
export function remotePixel(rect, screen, clientX, clientY, clamp = false) {
  if (rect.width <= 0 || rect.height <= 0) return null;
  const fx = (clientX - rect.left) / rect.width, fy = (clientY - rect.top) / rect.height;
  if (!clamp && (fx < 0 || fy < 0 || fx >= 1 || fy >= 1)) return null;
  return {
    x: Math.max(0, Math.min(screen.width - 1, Math.floor(fx * screen.width))),
    y: Math.max(0, Math.min(screen.height - 1, Math.floor(fy * screen.height))),
  };
}

export class ScreenView {
  constructor(area, canvas) {
    this.area = area;
    this.canvas = canvas;
    this.context = canvas.getContext("2d", { alpha: false });
    this.mode = "fit";      // "fit" | "one" (1:1) | "zoom"
    this.zoom = 1;          // in "zoom": times the fit scale
    this.screen = null;     // { width, height } of the host's screen
    this.monitor = null;    // the part of it shown ({ x, y, width, height }), null: all of it
    this.mapping = null;    // the picture's region and size, as the last frame said
    this.version = 0;
    this.movesApplied = 0;  // counted for the tests and the benchmark
  }

  /** What is shown: one monitor, or the whole screen. */
  get shown() {
    if (!this.screen) return null;
    const m = this.monitor;
    if (m && m.x + m.width <= this.screen.width && m.y + m.height <= this.screen.height) return m;
    return { x: 0, y: 0, width: this.screen.width, height: this.screen.height };
  }

  /**
   * What the canvas holds now: the region of the last frame (until a new monitor's picture
   * arrives, the old one), so a click maps to what is under it.
   */
  get displayed() {
    const m = this.mapping;
    if (m && m.regionWidth > 0 && m.regionHeight > 0) return { x: m.regionX, y: m.regionY, width: m.regionWidth, height: m.regionHeight };
    return this.shown;
  }

  /** CSS pixels per remote pixel. */
  get scale() {
    if (!this.screen) return 1;
    const shown = this.shown;
    const ratio = window.devicePixelRatio || 1;
    const fit = Math.min(this.area.clientWidth / shown.width, this.area.clientHeight / shown.height);
    switch (this.mode) {
      case "one": return 1 / ratio;
      case "zoom": return Math.max(fit, Math.min(fit * this.zoom, maximumZoom / ratio));
      default: return fit > 0 ? fit : 1;
    }
  }

  /** Sizes the canvas for the mode; returns the picture to ask zrc-ctl for. */
  layout() {
    if (!this.screen) return null;
    const scale = this.scale, shown = this.shown;
    const ratio = window.devicePixelRatio || 1;
    const cssWidth = shown.width * scale, cssHeight = shown.height * scale;
    this.canvas.style.width = `${cssWidth}px`;
    this.canvas.style.height = `${cssHeight}px`;
    this.area.classList.toggle("scrolls", this.mode !== "fit");
    // Device pixels per remote pixel: below 1 the host shrinks the picture for us (fewer bytes,
    // a box filter); at 1 and above it sends every pixel and the page enlarges without smoothing.
    const density = scale * ratio;
    const width = density < 1 ? Math.max(1, Math.round(shown.width * density)) : shown.width;
    const height = density < 1 ? Math.max(1, Math.round(shown.height * density)) : shown.height;
    this.canvas.style.imageRendering = width >= shown.width ? "pixelated" : "auto";
    return { width, height, region: { x: shown.x, y: shown.y, width: shown.width, height: shown.height } };
  }

  setMode(mode) {
    this.mode = mode;
    if (mode !== "zoom") this.zoom = 1;
  }

  /** Zooms by `factor` around client point (x, y), keeping that remote point under it. */
  zoomBy(factor, clientX, clientY) {
    if (!this.screen) return;
    const before = this.remotePoint(clientX, clientY, { exact: true });
    this.mode = "zoom";
    this.zoom = Math.max(1, Math.min(this.zoom * factor, 64));
    if (this.zoom === 1) this.mode = "fit";
    this.layout();
    if (before) {
      const rect = this.canvas.getBoundingClientRect();
      const scale = rect.width / this.displayed.width;
      this.area.scrollLeft += rect.left + before.x * scale - clientX;
      this.area.scrollTop += rect.top + before.y * scale - clientY;
    }
  }

  /**
   * The remote pixel under client point (x, y): null over the letterbox bars. The same rule as
   * the Swift viewport: floor of the continuous position, clamped to the screen.
   */
  remotePoint(clientX, clientY, { exact = false, clamp = false } = {}) {
    if (!this.screen) return null;
    const rect = this.canvas.getBoundingClientRect();
    const shown = this.displayed;
    if (exact) {
      if (rect.width <= 0 || rect.height <= 0) return null;
      return { x: (clientX - rect.left) / rect.width * shown.width, y: (clientY - rect.top) / rect.height * shown.height };
    }
    const point = remotePixel(rect, shown, clientX, clientY, clamp);
    return point && { x: point.x + shown.x, y: point.y + shown.y };
  }

  /** Puts a frame's rectangles on the canvas (called from an animation frame). */
  apply(frame) {
    const sizeChanged = !this.mapping || this.mapping.pictureWidth !== frame.pictureWidth
      || this.mapping.pictureHeight !== frame.pictureHeight;
    const screenChanged = !this.screen || this.screen.width !== frame.screenWidth || this.screen.height !== frame.screenHeight;
    this.mapping = frame;
    if (sizeChanged) {
      this.canvas.width = frame.pictureWidth;
      this.canvas.height = frame.pictureHeight;
    }
    if (screenChanged) this.screen = { width: frame.screenWidth, height: frame.screenHeight };
    for (const rect of frame.rects) {
      if (rect.encoding === 1) {
        // Drawing a canvas onto itself reads it as it was before the call, so overlapping
        // moves (a scroll) come out right; 1:1 at whole pixels, so nothing is resampled.
        this.context.imageSmoothingEnabled = false;
        this.context.drawImage(this.canvas, rect.sourceX, rect.sourceY, rect.width, rect.height, rect.x, rect.y, rect.width, rect.height);
        this.movesApplied++;
        continue;
      }
      const pixels = new Uint8ClampedArray(rect.pixels.buffer, rect.pixels.byteOffset, rect.pixels.byteLength);
      this.context.putImageData(new ImageData(pixels, rect.width, rect.height), rect.x, rect.y);
    }
    this.version = frame.version;
    return screenChanged;
  }
}
