// The clipboard between the page and the host, with the terminal viewer's policy: the host's
// copies reach the page only when zrc-ctl lets them through (asked for with "Take host
// clipboard", or every copy with --clipboard-from-host); the page's text goes to the host on
// paste, or through the paste box when the browser denies clipboard access.
import { encode } from "./wire.js";

export class ClipboardBridge {
  constructor({ send, status, box, isViewOnly }) {
    this.send = send;
    this.status = status;
    this.box = box;
    this.isViewOnly = isViewOnly;
    this.allowed = false;
    box.querySelector("form").addEventListener("submit", (event) => {
      event.preventDefault();
      const text = box.querySelector("textarea").value;
      if (text && !this.isViewOnly()) {
        this.send(encode.clipboard(text));
        this.status.notice("sent to the host's clipboard");
      }
      box.close();
    });
    box.querySelector("[data-cancel]").addEventListener("click", () => box.close());
  }

  setAllowed(allowed) { this.allowed = allowed; }

  openBox() {
    this.box.querySelector("textarea").value = "";
    this.box.showModal();
  }

  /** Text the host copied and zrc-ctl let through. */
  async fromHost(text) {
    this.lastFromHost = text;
    try {
      if (!document.hasFocus()) throw new Error("the page has no focus");
      await navigator.clipboard.writeText(text);
      this.status.notice(`host clipboard copied here (${text.length} characters)`);
    } catch {
      this.status.notice("the browser refused the clipboard: copy it from the paste box");
      this.box.querySelector("textarea").value = text;
      this.box.showModal();
    }
  }
}
