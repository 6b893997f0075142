// Pair: a code from `zrc-host pair --code` (the host is looked for on the LAN and at the
// rendezvous brokers, and the code proven with CPace) or an invite; the host's name and
// fingerprint are shown, and it is saved only when the person says so.
import { api } from "./api.js";

const $ = (id) => document.getElementById(id);

export class PairScreen {
  constructor(shell) {
    this.shell = shell;
    this.section = $("pair-screen");
    this.job = null;
    for (const radio of document.querySelectorAll("input[name=pair-kind]")) radio.addEventListener("change", () => this.kindChanged());
    $("pair-form").addEventListener("submit", (event) => { event.preventDefault(); this.find(); });
    $("pair-found").addEventListener("submit", (event) => { event.preventDefault(); this.save(); });
    $("found-cancel").addEventListener("click", () => this.cancel());
  }

  get kind() { return document.querySelector("input[name=pair-kind]:checked").value; }

  shown() {
    if (!this.job) this.reset();
  }

  kindChanged() {
    const code = this.kind === "code";
    $("pair-code-row").hidden = !code;
    $("pair-invite-row").hidden = code;
    this.error("");
  }

  reset() {
    this.job = null;
    $("pair-form").hidden = false;
    $("pair-found").hidden = true;
    $("pair-find").disabled = false;
    $("pair-progress").textContent = "";
    this.error("");
    this.kindChanged();
  }

  error(text, field) {
    $("pair-error").textContent = text;
    for (const input of [$("pair-code"), $("pair-invite"), $("found-name")]) input.removeAttribute("aria-invalid");
    const input = { code: $("pair-code"), invite: $("pair-invite"), name: $("found-name") }[field];
    if (input) {
      input.setAttribute("aria-invalid", "true");
      input.focus();
    }
  }

  async find() {
    this.error("");
    const body = this.kind === "code" ? { code: $("pair-code").value.trim() } : { invite: $("pair-invite").value.trim() };
    $("pair-find").disabled = true;
    try {
      const { job } = await api("pair/start", body);
      this.job = job;
      this.started = performance.now();
      this.follow(job);
    } catch (error) {
      $("pair-find").disabled = false;
      this.error(error.message, error.field);
    }
  }

  /** Polls the pairing until it needs the person or ends; says where it is meanwhile. */
  async follow(job) {
    while (this.job === job) {
      let status;
      try {
        status = await api("pair/status", { job });
      } catch (error) {
        if (this.job === job) { this.reset(); this.error(error.message); }
        return;
      }
      if (this.job !== job) return;
      const seconds = Math.round((performance.now() - this.started) / 1000);
      switch (status.state) {
        case "looking":
          $("pair-progress").textContent = status.place ? `Found the host (${status.place}); proving the code… ${seconds} s`
            : `Looking for the host on the LAN and at the rendezvous servers… ${seconds} s`;
          break;
        case "found":
          this.showFound(status);
          return;
        case "pairing":
          $("pair-progress").textContent = `Pairing… ${seconds} s`;
          break;
        case "paired":
          this.job = null;
          $("pair-found").hidden = true;
          $("pair-form").hidden = false;
          $("pair-find").disabled = false;
          $("pair-code").value = "";
          $("pair-invite").value = "";
          $("pair-progress").textContent = `Paired with ${status.hostName} as ${status.pairedAs}.`;
          this.shell.say(`Paired with ${status.hostName} as ${status.pairedAs}.`);
          this.shell.show("devices");
          return;
        case "failed":
          this.reset();
          this.error(status.error ?? "the pairing failed");
          return;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  showFound(status) {
    $("pair-progress").textContent = "";
    $("pair-form").hidden = true;
    $("found-host").textContent = status.hostName;
    $("found-fingerprint").textContent = status.hostFingerprint;
    const own = status.controllerFingerprint != null;
    $("found-own").textContent = status.controllerFingerprint ?? "";
    $("found-own").hidden = !own;
    $("found-own-label").hidden = !own;
    $("found-name").value = status.hostName;
    $("found-save").disabled = false;
    $("pair-found").hidden = false;
    $("found-name").focus();
  }

  async save() {
    const job = this.job;
    this.error("");
    $("found-save").disabled = true;
    try {
      await api("pair/confirm", { job, name: $("found-name").value.trim() });
      $("pair-found").hidden = true;
      this.started = performance.now();
      this.follow(job);
    } catch (error) {
      $("found-save").disabled = false;
      this.error(error.message, error.field);
    }
  }

  async cancel() {
    const job = this.job;
    this.reset();
    if (job) await api("pair/cancel", { job }).catch(() => {});
    $("pair-code").focus();
  }
}
