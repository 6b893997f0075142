// LAN: the ZRC hosts announcing themselves here (mDNS, 2 s), each marked with the name it is
// paired under on this controller, or as not paired. Names come from any machine on the LAN.
import { api, element } from "./api.js";

const $ = (id) => document.getElementById(id);

export class LanScreen {
  constructor(shell) {
    this.shell = shell;
    this.section = $("lan-screen");
    $("lan-scan").addEventListener("click", () => this.scan());
  }

  shown() { this.scan(); }

  async scan() {
    const note = $("lan-note"), scanButton = $("lan-scan");
    note.textContent = "Listening on the LAN for 2 s…";
    scanButton.disabled = true;
    try {
      const { hosts } = await api("lan");
      note.textContent = hosts.length ? `${hosts.length} host${hosts.length === 1 ? "" : "s"} on this LAN.` : "No ZRC host announced itself on this LAN.";
      $("lan-list").replaceChildren(...hosts.map((host) => {
        const item = element("li", null, "card");
        const info = element("div", null, "info");
        info.append(element("span", host.name, "title"), element("span", host.addresses.join(", "), "meta"),
                    element("span", host.pairedAs ? `paired as ${host.pairedAs}` : "not paired", "meta paired"));
        item.dataset.paired = host.pairedAs ? "yes" : "no";
        item.append(info);
        return item;
      }));
    } catch (error) {
      note.textContent = error.message;
    } finally {
      scanButton.disabled = false;
    }
  }
}
