// Devices: every paired host with its online dot (all probed at once, within 2 s), the path it
// would use and its round trip, when it was last seen; open its viewer here, rename it, forget it.
import { api, ago, button, element } from "./api.js";

const $ = (id) => document.getElementById(id);

export class DevicesScreen {
  constructor(shell) {
    this.shell = shell;
    this.section = $("devices-screen");
    this.list = $("device-list");
    this.devices = [];
    this.presence = new Map();
    this.timer = null;
    $("devices-refresh").addEventListener("click", () => this.checkPresence());
    this.dialog = $("forget-dialog");
  }

  async shown() {
    await this.load();
    this.checkPresence();
    clearInterval(this.timer);
    this.timer = setInterval(() => this.checkPresence(), 15000);
  }

  hidden() {
    clearInterval(this.timer);
    this.timer = null;
  }

  async load() {
    try {
      this.devices = (await api("devices")).devices;
    } catch (error) {
      this.shell.say(error.message);
      return;
    }
    this.render();
  }

  async checkPresence() {
    if (this.checking) return;
    this.checking = true;
    for (const device of this.devices) if (!this.presence.has(device.name)) this.presence.set(device.name, { checking: true });
    this.render();
    try {
      const answer = await api("presence");
      this.presence = new Map(answer.devices.map((entry) => [entry.name, entry]));
      // A probe that reached a host updated its "last seen".
      this.devices = (await api("devices")).devices;
    } catch (error) {
      this.shell.say(error.message);
    } finally {
      this.checking = false;
    }
    this.render();
  }

  /** Redraws the list; not while a rename is being typed, unless `force`. */
  render(force = false) {
    if (!force && this.list.querySelector("form.rename")) return;
    $("devices-empty").hidden = this.devices.length > 0;
    const focused = document.activeElement?.dataset?.key;
    const items = this.devices.map((device) => this.card(device));
    this.list.replaceChildren(...items);
    // Re-rendering must not throw a keyboard user's focus away.
    if (focused) this.list.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
  }

  card(device) {
    const presence = this.presence.get(device.name);
    const item = element("li", null, "card");
    item.dataset.device = device.name;
    const dot = element("span", null, "dot");
    const state = presence == null || presence.checking ? "checking" : presence.online ? "online" : "offline";
    dot.dataset.state = state;
    dot.setAttribute("role", "img");
    dot.setAttribute("aria-label", state);
    const info = element("div", null, "info");
    info.append(element("span", device.name, "title"));
    const reach = state === "online" ? `online · ${presence.path}${presence.roundTripMs != null ? ` · ${Math.round(presence.roundTripMs)} ms` : ""}`
      : state === "offline" ? `offline · ${presence.reason ?? ""}` : "checking…";
    info.append(element("span", reach, "meta reach"));
    info.append(element("span", `${device.hostName} · last seen ${ago(device.lastSeen)}`, "meta"));
    info.append(element("span", device.fingerprint, "meta fingerprint"));
    const actions = element("div", null, "actions");
    const open = button("Open", () => this.shell.openViewer(device.name));
    open.dataset.key = `open:${device.name}`;
    const rename = button("Rename", () => this.startRename(item, device));
    rename.dataset.key = `rename:${device.name}`;
    const forget = button("Forget", () => this.confirmForget(device), "danger");
    forget.dataset.key = `forget:${device.name}`;
    actions.append(open, rename, forget);
    item.append(dot, info, actions);
    return item;
  }

  startRename(item, device) {
    const form = element("form", null, "rename");
    const input = element("input");
    input.value = device.name;
    input.setAttribute("aria-label", `New name for ${device.name}`);
    input.maxLength = 64;
    const error = element("span", "", "error");
    error.setAttribute("role", "alert");
    const save = element("button", "Save");
    save.type = "submit";
    const cancel = button("Cancel", () => this.render(true));
    form.append(input, save, cancel, error);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        await api("rename", { name: device.name, newName: input.value });
        const presence = this.presence.get(device.name);
        if (presence) this.presence.set(input.value, { ...presence, name: input.value });
        this.list.querySelector("form.rename")?.remove();
        await this.load();
        this.shell.say(`Renamed ${device.name} to ${input.value}.`);
      } catch (failure) {
        error.textContent = failure.message;
        input.setAttribute("aria-invalid", "true");
        input.focus();
      }
    });
    input.addEventListener("keydown", (event) => { if (event.key === "Escape") { event.preventDefault(); this.render(true); } });
    item.querySelector(".actions").replaceWith(form);
    input.focus();
    input.select();
  }

  confirmForget(device) {
    $("forget-text").textContent = `${device.name} (fingerprint ${device.fingerprint}) will no longer be reachable from here. `
      + "The host keeps listing this controller until it is revoked there (zrc-host controllers revoke).";
    this.dialog.returnValue = "";
    this.dialog.onclose = async () => {
      if (this.dialog.returnValue !== "forget") return;
      try {
        await api("forget", { name: device.name });
        this.presence.delete(device.name);
        this.shell.say(`Forgot ${device.name}.`);
      } catch (error) {
        this.shell.say(error.message);
      }
      await this.load();
      this.list.querySelector("button")?.focus() ?? $("devices-title").focus();
    };
    this.dialog.showModal();
  }
}
