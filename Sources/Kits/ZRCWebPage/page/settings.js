// Settings: controller.json's fields, checked by zrc-ctl with the very rules that read the file
// (an invalid value is refused and its field named and marked), written atomically.
import { api, element } from "./api.js";

const $ = (id) => document.getElementById(id);
const lists = ["rendezvousUrls", "relayUrls", "stunUrls"];
const flags = ["clipboard", "clipboardFromHost"];
const choices = ["transportPreference", "renderer", "pasteMode"];

export class SettingsScreen {
  constructor(shell) {
    this.shell = shell;
    this.section = $("settings-screen");
    this.form = $("settings-form");
    this.form.addEventListener("submit", (event) => { event.preventDefault(); this.save(); });
  }

  async shown() {
    try {
      this.fill(await api("settings/get"));
    } catch (error) {
      this.error(error.message);
    }
  }

  fill({ settings, defaultControllerName, file, choices: options }) {
    const field = (name) => this.form.elements.namedItem(name);
    for (const name of choices) {
      const select = field(name);
      select.replaceChildren(...options[name].map((value) => { const option = element("option", value); option.value = value; return option; }));
      select.value = settings[name];
    }
    field("controllerName").value = settings.controllerName ?? "";
    field("controllerName").placeholder = defaultControllerName;
    for (const name of lists) field(name).value = (settings[name] ?? []).join("\n");
    for (const name of flags) field(name).checked = !!settings[name];
    $("settings-file").textContent = `Saved in ${file}`;
    this.error("");
  }

  values() {
    const field = (name) => this.form.elements.namedItem(name);
    const settings = { controllerName: field("controllerName").value.trim() };
    for (const name of lists) settings[name] = field(name).value.split("\n").map((line) => line.trim()).filter(Boolean);
    for (const name of flags) settings[name] = field(name).checked;
    for (const name of choices) settings[name] = field(name).value;
    return settings;
  }

  error(text, fieldPath) {
    $("settings-error").textContent = text;
    for (const control of this.form.elements) control.removeAttribute?.("aria-invalid");
    // "rendezvousUrls[1]" names the list's field.
    const name = fieldPath?.replace(/\[.*$/, "");
    const control = name ? this.form.elements.namedItem(name) : null;
    if (control) {
      control.setAttribute("aria-invalid", "true");
      control.focus();
    }
  }

  async save() {
    try {
      this.fill(await api("settings/set", { settings: this.values() }));
      this.shell.say("Settings saved.");
    } catch (error) {
      this.shell.say("");
      this.error(error.field ? `${error.field}: ${error.message}` : error.message, error.field);
    }
  }
}
