// The host's pointer shape as the page's CSS cursor, so the pointer follows the hand with no
// round trip; hidden when the host hides it.

export class CursorStyle {
  constructor(canvas) {
    this.canvas = canvas;
    this.shape = null;
    this.visible = true;
    this.css = "default";
  }

  setShape(shape, view) {
    this.shape = shape;
    this.rescale(view);
  }

  setVisible(visible) {
    this.visible = visible;
    this.apply();
  }

  /** Draws the shape at the size the remote pixels have on screen (browsers cap cursors at 128 px). */
  rescale(view) {
    const shape = this.shape;
    if (!shape) { this.css = "default"; this.apply(); return; }
    const rect = this.canvas.getBoundingClientRect();
    const perRemote = view.screen && rect.width > 0 ? rect.width / view.screen.width : 1;
    const scale = Math.min(perRemote, 128 / Math.max(shape.width, shape.height));
    const width = Math.max(1, Math.round(shape.width * scale)), height = Math.max(1, Math.round(shape.height * scale));
    const source = new OffscreenCanvas(shape.width, shape.height);
    source.getContext("2d").putImageData(new ImageData(new Uint8ClampedArray(shape.rgba), shape.width, shape.height), 0, 0);
    const target = document.createElement("canvas");
    target.width = width;
    target.height = height;
    const context = target.getContext("2d");
    context.imageSmoothingEnabled = scale < 1;
    context.drawImage(source, 0, 0, width, height);
    const hotX = Math.min(width - 1, Math.round(shape.hotX * scale)), hotY = Math.min(height - 1, Math.round(shape.hotY * scale));
    this.css = `url(${target.toDataURL("image/png")}) ${hotX} ${hotY}, default`;
    this.apply();
  }

  reset() { this.canvas.style.cursor = "default"; }

  apply() { this.canvas.style.cursor = this.visible ? this.css : "none"; }
}
