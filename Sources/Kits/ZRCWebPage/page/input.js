// Mouse, wheel and keyboard from the page to the host. Positions become remote pixels here; keys
// go as the browser reported them (key, code, modifiers) and zrc-ctl turns them into keysyms.
import { encode, PointerAction, Command, modifierBits } from "./wire.js";

// DOM MouseEvent.button → X button: left, middle, right, back (8), forward (9).
const xButton = [1, 2, 3, 8, 9];
// Wheel: pixels (or lines) per X wheel click.
const pixelsPerClick = 100, linesPerClick = 3;

export class InputForwarder {
  constructor({ view, send, sink, isViewOnly, onLocalKey }) {
    this.view = view;
    this.send = send;
    this.sink = sink;               // the focused textarea that receives keys and IME text
    this.isViewOnly = isViewOnly;
    this.onLocalKey = onLocalKey;   // keys the page itself handles (returns true when taken)
    this.held = new Set();          // X buttons down
    this.wheel = { x: 0, y: 0 };
    this.last = null;               // last remote point sent
    this.pendingPaste = null;
  }

  attach(canvas) {
    canvas.addEventListener("pointerdown", (e) => this.pointer(e, PointerAction.press));
    canvas.addEventListener("pointerup", (e) => this.pointer(e, PointerAction.release));
    canvas.addEventListener("pointermove", (e) => this.move(e));
    canvas.addEventListener("pointercancel", () => this.releaseButtons());
    canvas.addEventListener("contextmenu", (e) => e.preventDefault());
    canvas.addEventListener("auxclick", (e) => e.preventDefault());
    canvas.addEventListener("wheel", (e) => this.onWheel(e), { passive: false });
    // Back/forward buttons would navigate the page away.
    window.addEventListener("mouseup", (e) => { if (e.button === 3 || e.button === 4) e.preventDefault(); });
    const sink = this.sink;
    sink.addEventListener("keydown", (e) => this.key(e, true));
    sink.addEventListener("keyup", (e) => this.key(e, false));
    sink.addEventListener("compositionend", (e) => {
      if (e.data && !this.isViewOnly()) this.send(encode.text(e.data));
      sink.value = "";
    });
    sink.addEventListener("input", (e) => { if (!e.isComposing) sink.value = ""; });
    sink.addEventListener("paste", (e) => this.paste(e));
    window.addEventListener("blur", () => this.releaseAll());
    document.addEventListener("visibilitychange", () => { if (document.hidden) this.releaseAll(); });
  }

  pointer(event, action) {
    if (event.pointerType === "touch") return;  // touch.js owns fingers
    event.preventDefault();
    this.sink.focus({ preventScroll: true });
    const button = xButton[event.button];
    if (!button) return;
    const point = this.view.remotePoint(event.clientX, event.clientY, { clamp: action === PointerAction.release });
    if (!point || this.isViewOnly()) return;
    if (action === PointerAction.press) {
      event.target.setPointerCapture?.(event.pointerId);
      this.held.add(button);
    } else {
      if (!this.held.has(button)) return;
      this.held.delete(button);
    }
    this.last = point;
    this.send(encode.pointer(action, button, point.x, point.y));
  }

  move(event) {
    if (event.pointerType === "touch") return;
    // Every coalesced position while dragging (a drawing keeps its shape); the newest otherwise.
    const events = this.held.size > 0 && event.getCoalescedEvents ? event.getCoalescedEvents() : [event];
    for (const e of events.length ? events : [event]) {
      const point = this.view.remotePoint(e.clientX, e.clientY, { clamp: this.held.size > 0 });
      if (!point || this.isViewOnly()) continue;
      if (this.last && this.last.x === point.x && this.last.y === point.y) continue;
      this.last = point;
      this.send(encode.pointer(PointerAction.move, 0, point.x, point.y));
    }
  }

  onWheel(event) {
    event.preventDefault();
    if (event.ctrlKey) {
      // Ctrl+wheel (and a trackpad's pinch, which browsers report so) zooms the view.
      this.view.zoomBy(Math.exp(-event.deltaY / 300), event.clientX, event.clientY);
      this.onZoom?.();
      return;
    }
    const point = this.view.remotePoint(event.clientX, event.clientY);
    if (!point || this.isViewOnly()) return;
    const unit = event.deltaMode === 1 ? linesPerClick : event.deltaMode === 2 ? 1 / 3 : pixelsPerClick;
    // Smooth trackpad deltas add up to whole clicks; the rest waits for the next event.
    this.wheel.x += event.deltaX / unit;
    this.wheel.y += event.deltaY / unit;
    const dx = Math.trunc(this.wheel.x), dy = Math.trunc(this.wheel.y);
    if (dx === 0 && dy === 0) return;
    this.wheel.x -= dx;
    this.wheel.y -= dy;
    this.send(encode.wheel(dx, dy, point.x, point.y));
  }

  key(event, pressed) {
    if (event.isComposing || event.keyCode === 229) return;  // an input method has it
    if (pressed && this.onLocalKey?.(event)) { event.preventDefault(); return; }
    // Ctrl+V and Shift+Insert: let the browser paste first, so the host gets this clipboard
    // before the keys that paste it there.
    const pasteChord = pressed && ((event.ctrlKey && (event.key === "v" || event.key === "V")) || (event.shiftKey && event.key === "Insert"));
    if (pasteChord) {
      this.pendingPaste = { key: event.key, code: event.code, modifiers: modifierBits(event) };
      setTimeout(() => this.flushPendingPaste(), 150);  // no paste event came: send the keys as they are
      return;
    }
    event.preventDefault();
    if (this.isViewOnly()) return;
    if (!pressed && this.pendingPaste?.code === event.code) return;
    this.send(encode.key(pressed, event.key, event.code, modifierBits(event)));
  }

  paste(event) {
    event.preventDefault();
    const text = event.clipboardData?.getData("text/plain") ?? "";
    if (text && !this.isViewOnly()) this.send(encode.clipboard(text));
    this.flushPendingPaste();
  }

  flushPendingPaste() {
    const chord = this.pendingPaste;
    if (!chord) return;
    this.pendingPaste = null;
    if (this.isViewOnly()) return;
    this.send(encode.key(true, chord.key, chord.code, chord.modifiers));
    this.send(encode.key(false, chord.key, chord.code, chord.modifiers));
  }

  releaseButtons() {
    const point = this.last ?? { x: 0, y: 0 };
    for (const button of this.held) this.send(encode.pointer(PointerAction.release, button, point.x, point.y));
    this.held.clear();
  }

  /** Nothing stays held on the host when the page loses focus. */
  releaseAll() {
    this.releaseButtons();
    this.send(encode.command(Command.releaseAll));
  }
}
