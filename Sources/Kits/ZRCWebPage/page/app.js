// The browser viewer: a local display for zrc-ctl, which alone holds the session with the host.
// Exchanges the URL's token for a cookie, opens the local WebSocket, draws frames on animation
// frames and acknowledges what it drew, and forwards input. `view --web` starts it at once; the
// app (app.html, shell.js) opens it for the device chosen, in the same page.
import { decodeUpdate, encode, Command } from "./wire.js";
import { ScreenView } from "./view.js";
import { InputForwarder } from "./input.js";
import { TouchGestures } from "./touch.js";
import { StatusBar } from "./status.js";
import { CursorStyle } from "./cursor.js";
import { ClipboardBridge } from "./clipboard.js";
import { buildViewer } from "./viewer-dom.js";
import { FilePanel } from "./files.js";

const $ = (id) => document.getElementById(id);

export class Viewer {
  /** `onEnded(reason)`: the session ended or the user disconnected (the app goes back to its devices). */
  constructor({ onEnded } = {}) {
    this.onEnded = onEnded;
    this.area = $("screen-area");
    this.canvas = $("screen");
    this.sink = $("keyboard-sink");
    this.view = new ScreenView(this.area, this.canvas);
    this.status = new StatusBar($("status"));
    this.cursor = new CursorStyle(this.canvas);
    this.socket = null;
    this.pending = [];          // frames received, not yet drawn
    this.drawScheduled = false;
    this.viewOnly = false;
    this.ended = false;
    this.lastRequest = "";
    this.stats = { drawn: 0, since: performance.now(), lastDrawn: null };
    const send = (bytes) => this.send(bytes);
    const isViewOnly = () => this.viewOnly;
    this.input = new InputForwarder({ view: this.view, send, sink: this.sink, isViewOnly, onLocalKey: (e) => this.localKey(e) });
    this.input.onZoom = () => this.relayout();
    this.touch = new TouchGestures({ view: this.view, send, isViewOnly, onZoom: () => this.relayout() });
    this.clipboard = new ClipboardBridge({ send, status: this.status, box: $("paste-box"), isViewOnly });
    this.files = new FilePanel({ send, area: this.area });
  }

  async start() {
    this.setUp();
    try {
      await exchangeToken("run `zrc-ctl view NAME --web` again");
    } catch (error) {
      this.status.fail(`${error.message}`);
      return;
    }
    this.connect();
  }

  /** Listeners on the page's elements: once per page. */
  setUp() {
    if (this.isSetUp) return;
    this.isSetUp = true;
    this.input.attach(this.canvas);
    this.touch.attach(this.canvas);
    this.wireToolbar();
    this.files.attach();
    new ResizeObserver(() => this.relayout()).observe(this.area);
    window.matchMedia?.(`(resolution: ${window.devicePixelRatio}dppx)`).addEventListener?.("change", () => this.relayout());
  }

  /** Opens the local WebSocket: a session's pictures from zrc-ctl (the app opens one per device chosen). */
  connect() {
    this.pending = [];
    this.viewOnly = false;
    this.ended = false;
    this.lastRequest = "";
    this.inputAt = null;
    window.zrcDrawn = undefined;  // versions start again with each session
    this.status.reset();
    const socket = new WebSocket(`ws://${location.host}/socket`);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.addEventListener("message", (event) => { if (this.socket === socket) this.receive(event.data); });
    socket.addEventListener("close", () => {
      if (this.socket !== socket) return;
      if (!this.ended) this.status.fail("zrc-ctl is gone: this page no longer shows anything");
      this.finish(this.status.element.textContent);
      this.cursor.reset();
    });
  }

  /** The session is over for this page: said once. */
  finish(reason) {
    this.ended = true;
    if (this.finished === this.socket) return;
    this.finished = this.socket;
    this.onEnded?.(reason);
  }

  send(bytes) {
    if (this.socket?.readyState !== WebSocket.OPEN || this.ended) return;
    this.socket.send(bytes);
    // Input → frame: from the first input after a paint to the next paint (a click, a key, a
    // wheel step; not pointer motion, which usually changes nothing on the host).
    const type = new Uint8Array(bytes, 0, 2);
    const isAction = type[0] === 0x85 || type[0] === 0x84 || type[0] === 0x86 || (type[0] === 0x83 && type[1] !== 0);
    if (isAction && this.inputAt == null) this.inputAt = performance.now();
  }

  receive(data) {
    if (!(data instanceof ArrayBuffer)) return;
    let update;
    try {
      update = decodeUpdate(data);
    } catch (error) {
      console.warn(`zrc: dropped a message from zrc-ctl: ${error.message}`);
      return;
    }
    switch (update.type) {
      case "hello":
        this.viewOnly = update.viewOnly;
        this.status.hello(update);
        this.clipboard.setAllowed(update.clipboard);
        this.relayout(true);
        break;
      case "frame":
        update.receivedAt = performance.now();
        this.pending.push(update);
        this.scheduleDraw();
        break;
      case "cursor":
        this.cursor.setShape(update.shape, this.view);
        break;
      case "cursorVisible":
        this.cursor.setVisible(update.visible);
        break;
      case "status":
        this.viewOnly = !!update.status.viewOnly;
        // An input nobody answered with a frame within a second changed nothing visible.
        if (this.inputAt != null && performance.now() - this.inputAt > 1000) this.inputAt = null;
        this.status.update({ ...update.status, inputLatencyMs: this.inputLatency }, this.drawRate());
        break;
      case "clipboard":
        this.clipboard.fromHost(update.text);
        break;
      case "monitors":
        this.showMonitors(update.monitors);
        break;
      case "files":
        this.files.event(update.event);
        break;
      case "end":
        this.ended = true;
        this.status.fail(update.takenOver ? "another tab took over this viewer" : `session ended: ${update.reason}`);
        this.socket?.close();
        this.finish(this.status.element.textContent);
        break;
    }
  }

  scheduleDraw() {
    if (this.drawScheduled) return;
    this.drawScheduled = true;
    requestAnimationFrame((time) => this.draw(time));
  }

  /** Draws every frame that came since the last animation frame, in order, then says so. */
  draw(time) {
    this.drawScheduled = false;
    if (this.pending.length === 0) return;
    let screenChanged = false;
    const frames = this.pending;
    for (const frame of frames) screenChanged = this.view.apply(frame) || screenChanged;
    const version = frames[frames.length - 1].version;
    this.pending = [];
    // Pictures are painted in the order they were made, never an older one after a newer.
    if (version < (window.zrcDrawn?.version ?? 0)) window.zrcOutOfOrder = (window.zrcOutOfOrder ?? 0) + 1;
    this.stats.drawn += 1;
    this.stats.lastDrawn = time;
    if (this.inputAt != null) {
      const latency = performance.now() - this.inputAt;
      this.inputLatency = this.inputLatency == null ? latency : this.inputLatency * 0.7 + latency * 0.3;
      this.inputAt = null;
    }
    if (screenChanged) this.relayout(true);
    this.send(encode.drawn(version));
    // Benchmarks and tests read this: what the canvas shows, and when it was drawn.
    window.zrcDrawn = { version, time, count: (window.zrcDrawn?.count ?? 0) + 1, frames: (window.zrcDrawn?.frames ?? 0) + frames.length };
    window.zrcAfterDraw?.(time, frames);
  }

  drawRate() {
    const now = performance.now(), seconds = (now - this.stats.since) / 1000;
    const rate = seconds > 0 ? this.stats.drawn / seconds : 0;
    this.stats = { drawn: 0, since: now, lastDrawn: this.stats.lastDrawn };
    return rate;
  }

  /** Sizes the canvas and asks for the picture it shows (only when that changed). */
  relayout(force = false) {
    const wanted = this.view.layout();
    this.cursor.rescale(this.view);
    if (!wanted) return;
    const key = `${wanted.width}x${wanted.height}@${wanted.region.x},${wanted.region.y},${wanted.region.width},${wanted.region.height}`;
    if (!force && key === this.lastRequest) return;
    this.lastRequest = key;
    this.send(encode.view(wanted.width, wanted.height, wanted.region));
  }

  /** The monitor menu: all of the screen, or one monitor (only when there are several). */
  showMonitors(monitors) {
    const select = $("monitor");
    const chosen = select.value;
    select.replaceChildren(new Option("All monitors", ""));
    monitors.forEach((m, index) => select.add(new Option(`${m.name || `monitor ${index + 1}`}${m.primary ? " (primary)" : ""}`, String(index))));
    this.monitors = monitors;
    select.parentElement.hidden = monitors.length < 2;
    select.value = chosen && Number(chosen) < monitors.length ? chosen : "";
    this.chooseMonitor(select.value);
  }

  chooseMonitor(value) {
    const monitor = value === "" ? null : this.monitors?.[Number(value)] ?? null;
    this.view.monitor = monitor && { x: monitor.x, y: monitor.y, width: monitor.width, height: monitor.height };
    this.relayout(true);
  }

  localKey(event) {
    // Holding Esc leaves fullscreen (the browser's own rule); F11 stays the browser's.
    if (event.key === "F11") return false;
    return false;
  }

  wireToolbar() {
    $("disconnect").addEventListener("click", () => {
      this.send(encode.command(Command.disconnect));
      this.ended = true;
      this.status.fail("disconnected");
      this.finish("disconnected");
    });
    $("fullscreen").addEventListener("click", () => this.toggleFullscreen());
    $("scale").addEventListener("change", (e) => { this.view.setMode(e.target.value); this.relayout(); });
    $("monitor").addEventListener("change", (e) => { this.chooseMonitor(e.target.value); this.sink.focus(); });
    $("keys").addEventListener("change", (e) => {
      if (e.target.value === "ctrl-alt-delete") this.send(encode.command(Command.ctrlAltDelete));
      e.target.value = "";
      this.sink.focus();
    });
    $("take-clipboard").addEventListener("click", () => { this.send(encode.command(Command.takeHostClipboard)); this.sink.focus(); });
    $("paste-button").addEventListener("click", () => this.clipboard.openBox());
    $("touchpad").addEventListener("change", (e) => { this.touch.touchpad = e.target.checked; this.sink.focus(); });
    this.area.addEventListener("pointerdown", () => this.sink.focus({ preventScroll: true }));
  }

  async toggleFullscreen() {
    if (document.fullscreenElement) {
      navigator.keyboard?.unlock?.();
      await document.exitFullscreen();
      return;
    }
    await document.documentElement.requestFullscreen();
    // In fullscreen the page takes the keyboard, so Alt+Tab, Super and Ctrl+W reach the host;
    // holding Esc leaves, as the browser tells the user.
    try { await navigator.keyboard?.lock?.(); } catch { /* not offered: keys stay the browser's */ }
    this.sink.focus();
  }
}

/**
 * The token rides in the fragment (never sent in a request line or Referer); trade it once for
 * the cookie. Nothing to do on a reload: the cookie is already set.
 */
export async function exchangeToken(again) {
  const match = /(?:^#|&)token=([0-9a-f]{32})(?:&|$)/.exec(location.hash);
  if (!match) return;
  history.replaceState(null, "", location.pathname);
  const response = await fetch("/session", { method: "POST", headers: { "X-ZRC-Token": match[1] }, credentials: "same-origin", cache: "no-store" });
  if (response.status !== 204) throw new Error(`this page's address is no longer valid: ${again}`);
}

// The viewer page starts at once; the app's page (body data-app) opens it when asked.
if (!document.body.dataset.app) {
  buildViewer(document.body);
  const viewer = new Viewer();
  window.zrcViewer = viewer;
  viewer.start();
}
