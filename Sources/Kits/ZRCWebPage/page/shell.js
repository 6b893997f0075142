// The controller's app (zrc-ctl app): trades the address's token for the cookie, then switches
// between its screens — Devices, Pair, LAN, Settings — and the viewer, which opens in this page.
import { exchangeToken, Viewer } from "./app.js";
import { api } from "./api.js";
import { DevicesScreen } from "./devices.js";
import { PairScreen } from "./pair.js";
import { LanScreen } from "./lan.js";
import { SettingsScreen } from "./settings.js";
import { buildViewer } from "./viewer-dom.js";

const $ = (id) => document.getElementById(id);

class Shell {
  constructor() {
    this.notice = $("app-notice");
    this.screens = {
      devices: new DevicesScreen(this),
      pair: new PairScreen(this),
      lan: new LanScreen(this),
      settings: new SettingsScreen(this),
    };
    this.current = null;
    this.viewer = null;
  }

  async start() {
    for (const item of document.querySelectorAll("#app-nav [data-screen]")) {
      item.addEventListener("click", () => {
        this.say("");
        this.show(item.dataset.screen);
      });
    }
    try {
      await exchangeToken("run `zrc-ctl app` again");
    } catch (error) {
      this.say(error.message);
      return;
    }
    // zrc-ctl ends 10 minutes after the last page stopped asking.
    setInterval(() => api("alive").catch(() => {}), 30000);
    this.show("devices");
  }

  /** Shows screen `name` (its button marked, its heading focused for screen readers and keys). */
  show(name, { focus = true } = {}) {
    if (this.current === "viewer" && name !== "viewer") this.closeViewer();
    for (const [key, screen] of Object.entries(this.screens)) screen.section.hidden = key !== name;
    $("viewer-screen").hidden = name !== "viewer";
    for (const item of document.querySelectorAll("#app-nav [data-screen]")) {
      if (item.dataset.screen === name) item.setAttribute("aria-current", "page"); else item.removeAttribute("aria-current");
    }
    const previous = this.current;
    this.current = name;
    if (previous !== name) this.screens[previous]?.hidden?.();
    this.screens[name]?.shown?.();
    if (focus && name !== "viewer") {
      const heading = this.screens[name].section.querySelector("h1");
      heading.tabIndex = -1;
      heading.focus({ preventScroll: true });
    }
  }

  /** Opens the viewer of paired host `name` in this page. */
  async openViewer(name) {
    this.say("");
    try {
      await api("view", { name });
    } catch (error) {
      this.say(`Cannot open ${name}: ${error.message}`);
      return;
    }
    if (!this.viewer) {
      buildViewer($("viewer-screen"));
      this.viewer = new Viewer({ onEnded: (reason) => this.viewerEnded(reason) });
      window.zrcViewer = this.viewer;
      this.viewer.setUp();
    }
    this.viewing = name;
    this.show("viewer", { focus: false });
    this.viewer.connect();
    this.viewer.sink.focus({ preventScroll: true });
  }

  viewerEnded(reason) {
    if (this.current !== "viewer") return;
    this.say(`${this.viewing}: ${reason}`);
    this.show("devices");
  }

  closeViewer() {
    if (!this.viewer || this.viewer.ended) return;
    this.viewer.ended = true;
    this.viewer.socket?.close();
    api("view/stop").catch(() => {});
  }

  /** A line above the screens (empty: none). */
  say(text) { this.notice.textContent = text; }
}

// Script errors, for the tests (and a console-less user's bug report).
window.zrcErrors = [];
window.addEventListener("error", (event) => window.zrcErrors.push(String(event.message)));
window.addEventListener("unhandledrejection", (event) => window.zrcErrors.push(String(event.reason)));

const shell = new Shell();
window.zrcApp = shell;
shell.start();
