// The status bar: connection state, path and round trip, frames per second, throughput, input →
// frame latency, view-only. Every text comes from zrc-ctl already sanitized and is set as text,
// never as HTML.

export class StatusBar {
  constructor(element) {
    this.element = element;
    this.host = "";
    this.failed = false;
  }

  hello({ host, viewOnly }) {
    this.host = host;
    this.set(`${host} · connecting${viewOnly ? " · view only" : ""}`);
  }

  update(status, drawnPerSecond) {
    if (this.failed) return;
    const parts = [status.host || this.host];
    switch (status.state) {
      case "connected": parts.push("connected"); break;
      case "connecting": parts.push("connecting…"); break;
      case "reconnecting": parts.push(`reconnecting in ${status.retryIn ?? "?"} s${status.reason ? ` (${status.reason})` : ""}`); break;
      case "ended": parts.push(`ended: ${status.reason ?? ""}`); break;
      default: parts.push(String(status.state ?? ""));
    }
    if (status.state === "connected") {
      if (status.path) parts.push(status.rttMs != null ? `${status.path} ${Math.round(status.rttMs)} ms` : status.path);
      parts.push(`${drawnPerSecond.toFixed(0)} fps`);
      if (status.kilobytesPerSecond != null) parts.push(`${Math.round(status.kilobytesPerSecond)} kB/s`);
      if (status.inputLatencyMs != null) parts.push(`input→frame ${Math.round(status.inputLatencyMs)} ms`);
    }
    if (status.viewOnly) parts.push("view only");
    if (status.notice) parts.push(status.notice);
    this.set(parts.filter(Boolean).join(" · "));
    this.element.dataset.state = status.state ?? "";
  }

  /** A new session: failures of the last one no longer hold. */
  reset() {
    this.failed = false;
    this.element.dataset.state = "";
    this.set("connecting…");
  }

  fail(text) {
    this.failed = true;
    this.element.dataset.state = "ended";
    this.set(text);
  }

  notice(text) {
    const previous = this.element.textContent;
    this.set(text);
    setTimeout(() => { if (this.element.textContent === text) this.set(previous); }, 4000);
  }

  set(text) { this.element.textContent = text; }
}
