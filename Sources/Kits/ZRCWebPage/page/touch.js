// Touch gestures (the origin documents' set): tap = left click where the finger is, long press =
// right click, one-finger drag = drag, two-finger drag = scroll, pinch = zoom the view (not the
// remote). In touchpad mode one finger moves the remote pointer relatively and a tap clicks there.
import { encode, PointerAction } from "./wire.js";

const longPressMs = 500;
const slopPx = 8;            // movement that turns a touch into a drag
const scrollStepPx = 40;     // two-finger travel per wheel click
const pinchThreshold = 0.04; // relative spread change that makes two fingers a pinch

export class TouchGestures {
  constructor({ view, send, isViewOnly, onZoom }) {
    this.view = view;
    this.send = send;
    this.isViewOnly = isViewOnly;
    this.onZoom = onZoom;
    this.touchpad = false;
    this.fingers = new Map();   // pointerId → { x, y, startX, startY }
    this.state = { kind: "idle" };
    this.cursor = null;         // touchpad mode's remote pointer
  }

  attach(canvas) {
    canvas.style.touchAction = "none";
    canvas.addEventListener("pointerdown", (e) => this.down(e));
    canvas.addEventListener("pointermove", (e) => this.moved(e));
    canvas.addEventListener("pointerup", (e) => this.up(e, false));
    canvas.addEventListener("pointercancel", (e) => this.up(e, true));
  }

  point(x, y) { return this.view.remotePoint(x, y, { clamp: true }); }

  emit(action, button, point) {
    if (!point || this.isViewOnly()) return;
    this.send(encode.pointer(action, button, point.x, point.y));
  }

  down(event) {
    if (event.pointerType !== "touch") return;
    event.preventDefault();
    event.target.setPointerCapture?.(event.pointerId);
    this.fingers.set(event.pointerId, { x: event.clientX, y: event.clientY, startX: event.clientX, startY: event.clientY });
    this.clearTimer();
    if (this.fingers.size === 1) {
      this.state = { kind: "pending", start: performance.now() };
      this.timer = setTimeout(() => this.longPress(event.pointerId), longPressMs);
    } else if (this.fingers.size === 2) {
      if (this.state.kind === "dragging") this.endDrag();
      const [a, b] = [...this.fingers.values()];
      this.state = { kind: "two", spread: Math.hypot(a.x - b.x, a.y - b.y), centerY: (a.y + b.y) / 2, centerX: (a.x + b.x) / 2, travelX: 0, travelY: 0, pinching: false };
    }
  }

  moved(event) {
    if (event.pointerType !== "touch" || !this.fingers.has(event.pointerId)) return;
    event.preventDefault();
    const finger = this.fingers.get(event.pointerId);
    const dx = event.clientX - finger.x, dy = event.clientY - finger.y;
    finger.x = event.clientX;
    finger.y = event.clientY;
    const state = this.state;
    if (state.kind === "pending" && Math.hypot(finger.x - finger.startX, finger.y - finger.startY) > slopPx) {
      this.clearTimer();
      if (this.touchpad) {
        this.state = { kind: "moving" };
      } else {
        this.state = { kind: "dragging" };
        const start = this.point(finger.startX, finger.startY);
        this.emit(PointerAction.move, 0, start);
        this.emit(PointerAction.press, 1, start);
      }
    }
    if (this.state.kind === "dragging") {
      this.emit(PointerAction.move, 0, this.point(finger.x, finger.y));
    } else if (this.state.kind === "moving") {
      this.moveRelative(dx, dy);
    } else if (state.kind === "two" && this.fingers.size === 2) {
      const [a, b] = [...this.fingers.values()];
      const spread = Math.hypot(a.x - b.x, a.y - b.y);
      const centerX = (a.x + b.x) / 2, centerY = (a.y + b.y) / 2;
      if (state.pinching || Math.abs(spread / state.spread - 1) > pinchThreshold) {
        state.pinching = true;
        this.view.zoomBy(spread / state.spread, centerX, centerY);
        this.onZoom?.();
        state.spread = spread;
      } else {
        state.travelX += centerX - state.centerX;
        state.travelY += centerY - state.centerY;
        // Content follows the fingers: moving them up scrolls down.
        const clicksX = Math.trunc(-state.travelX / scrollStepPx), clicksY = Math.trunc(-state.travelY / scrollStepPx);
        if ((clicksX || clicksY) && !this.isViewOnly()) {
          const at = this.point(centerX, centerY);
          if (at) this.send(encode.wheel(clicksX, clicksY, at.x, at.y));
          state.travelX += clicksX * scrollStepPx;
          state.travelY += clicksY * scrollStepPx;
        }
      }
      state.centerX = centerX;
      state.centerY = centerY;
    }
  }

  up(event, cancelled) {
    if (event.pointerType !== "touch" || !this.fingers.has(event.pointerId)) return;
    event.preventDefault();
    const finger = this.fingers.get(event.pointerId);
    this.fingers.delete(event.pointerId);
    this.clearTimer();
    const state = this.state;
    if (state.kind === "pending" && !cancelled) {
      // A tap: a left click where the finger was (touchpad: where the pointer is).
      const at = this.touchpad ? this.cursor : this.point(finger.startX, finger.startY);
      this.emit(PointerAction.move, 0, at);
      this.emit(PointerAction.press, 1, at);
      this.emit(PointerAction.release, 1, at);
    } else if (state.kind === "dragging") {
      this.emit(PointerAction.release, 1, this.point(finger.x, finger.y));
    }
    if (this.fingers.size === 0) this.state = { kind: "idle" };
    else if (state.kind === "two") this.state = { kind: "lifted" };  // the other finger ends the gesture
  }

  longPress(pointerId) {
    const finger = this.fingers.get(pointerId);
    if (!finger || this.state.kind !== "pending") return;
    const at = this.touchpad ? this.cursor : this.point(finger.startX, finger.startY);
    this.emit(PointerAction.move, 0, at);
    this.emit(PointerAction.press, 3, at);
    this.emit(PointerAction.release, 3, at);
    this.state = { kind: "lifted" };
  }

  moveRelative(dx, dy) {
    const screen = this.view.screen;
    if (!screen) return;
    const rect = this.view.canvas.getBoundingClientRect();
    const perCss = screen.width / Math.max(1, rect.width);
    const from = this.cursor ?? { x: screen.width / 2, y: screen.height / 2 };
    this.cursor = {
      x: Math.max(0, Math.min(screen.width - 1, Math.round(from.x + dx * perCss))),
      y: Math.max(0, Math.min(screen.height - 1, Math.round(from.y + dy * perCss))),
    };
    this.emit(PointerAction.move, 0, this.cursor);
  }

  endDrag() {
    const finger = [...this.fingers.values()][0];
    if (finger) this.emit(PointerAction.release, 1, this.point(finger.x, finger.y));
  }

  clearTimer() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
