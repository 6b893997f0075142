// The file panel and drops: upload files or a folder into the host's upload directory (dropped on
// the screen, or picked), list a remote directory and download a file with the browser's own
// download manager; progress and cancel per transfer, and a question before a name is replaced.
// zrc-ctl does the transfer (the host's rules apply as for `zrc-ctl cp`); the page streams an
// upload's body with a ticket zrc-ctl gave it, and follows a download's ticket as a link.
import { encode } from "./wire.js";

const $ = (id) => document.getElementById(id);
const utf8 = new TextEncoder();

/** 1536 → "1.5 KiB". */
export function formatBytes(n) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = n, unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit++; }
  return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export class FilePanel {
  constructor({ send, area }) {
    this.send = send;
    this.area = area;
    this.panel = $("files-panel");
    this.terms = null;
    this.nextTag = 1;
    this.pending = new Map();   // tag → { kind, …, row }
    this.path = "";
    this.queue = [];            // uploads waiting their turn: one at a time, in order
    this.uploading = null;
  }

  attach() {
    $("files-button").addEventListener("click", () => this.toggle());
    $("files-close").addEventListener("click", () => this.toggle(false));
    $("files-up").addEventListener("click", () => this.open(this.path.split("/").slice(0, -1).join("/")));
    $("files-refresh").addEventListener("click", () => this.open(this.path));
    for (const id of ["files-pick", "files-pick-folder"]) {
      $(id).addEventListener("change", (event) => {
        for (const file of event.target.files) this.enqueue(file, file.webkitRelativePath || file.name);
        event.target.value = "";
      });
    }
    this.area.addEventListener("dragover", (event) => {
      if (!this.canUpload() || !event.dataTransfer.types.includes("Files")) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "copy";
      this.area.classList.add("dropping");
    });
    this.area.addEventListener("dragleave", () => this.area.classList.remove("dropping"));
    this.area.addEventListener("drop", (event) => {
      this.area.classList.remove("dropping");
      if (!this.canUpload()) return;
      event.preventDefault();
      this.dropped(event.dataTransfer);
    });
  }

  canUpload() { return !!this.terms?.upload; }

  /** The host's terms for this session (or that it transfers none). */
  setTerms(terms) {
    this.terms = terms.upload || terms.download ? terms : null;
    $("files-button").hidden = !this.terms;
    if (!this.terms) { this.toggle(false); return; }
    $("files-target").textContent = terms.upload
      ? `Drop files on the screen, or pick them: they go to ${terms.root}/${terms.uploadDirectory}`.replace(/\/$/, "")
      : "This host allows downloads only.";
    for (const id of ["files-pick-label", "files-pick-folder-label"]) $(id).hidden = !terms.upload;
    if (!this.panel.hidden) this.open(this.path);
  }

  toggle(show = this.panel.hidden) {
    this.panel.hidden = !show;
    if (show) this.open(this.path);
  }

  /** Lists remote directory `path` in the panel. */
  open(path) {
    if (!this.terms) return;
    const tag = this.nextTag++;
    this.pending.set(tag, { kind: "list", path });
    this.send(encode.fileList(tag, path));
  }

  /** A file event from zrc-ctl. */
  event(e) {
    if (e.event === "terms") { this.setTerms(e); return; }
    const job = this.pending.get(e.tag);
    if (!job) return;
    switch (e.event) {
      case "listing": this.pending.delete(e.tag); this.showListing(e.path, e.entries); break;
      case "ticket": this.ticket(job, e); break;
      case "exists": this.askReplace(e.tag, job, e.path); break;
      case "progress": this.progress(job, e.done, e.total); break;
      case "done": this.finish(e.tag, job, "done"); break;
      case "failed":
        if (job.kind === "list") { this.pending.delete(e.tag); $("files-error").textContent = e.error; break; }
        this.finish(e.tag, job, e.error);
        break;
    }
  }

  showListing(path, entries) {
    this.path = path;
    $("files-error").textContent = "";
    $("files-path").textContent = `${this.terms.root}/${path}`.replace(/\/$/, "") || "/";
    $("files-up").disabled = path === "";
    const body = $("files-list");
    body.replaceChildren();
    for (const entry of entries) {
      const row = body.insertRow();
      const name = row.insertCell();
      if (entry.kind === "directory" && entry.valid) {
        const link = document.createElement("button");
        link.type = "button";
        link.className = "link";
        link.textContent = `${entry.name}/`;
        link.addEventListener("click", () => this.open(path ? `${path}/${entry.name}` : entry.name));
        name.append(link);
      } else {
        name.textContent = entry.kind === "symlink" ? `${entry.name} →` : entry.name;
        if (!entry.valid) name.title = "a name that cannot be transferred (shown escaped)";
      }
      row.insertCell().textContent = entry.kind === "file" ? formatBytes(entry.size) : entry.kind;
      row.insertCell().textContent = new Date(entry.modified).toLocaleString();
      const action = row.insertCell();
      if (entry.kind === "file" && entry.valid && this.terms.download) {
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = "Download";
        button.addEventListener("click", () => this.download(path ? `${path}/${entry.name}` : entry.name, entry.name, entry.size));
        action.append(button);
      }
    }
    if (entries.length === 0) body.insertRow().insertCell().textContent = "(empty)";
  }

  /** Everything dropped: files, and folders walked (their relative paths kept). */
  async dropped(transfer) {
    const entries = [...transfer.items].map((item) => item.webkitGetAsEntry?.()).filter(Boolean);
    if (entries.length === 0) { for (const file of transfer.files) this.enqueue(file, file.name); return; }
    for (const entry of entries) await this.walk(entry, "");
  }

  async walk(entry, prefix) {
    if (entry.isFile) {
      const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
      this.enqueue(file, prefix + entry.name);
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
        if (batch.length === 0) break;
        for (const child of batch) await this.walk(child, `${prefix}${entry.name}/`);
      }
    }
  }

  enqueue(file, path) {
    const tag = this.nextTag++;
    const job = { kind: "upload", file, path, row: this.transferRow(tag, `↑ ${path}`, file.size) };
    this.pending.set(tag, job);
    if (utf8.encode(path).length > 4096) { this.finish(tag, job, "the path is longer than 4096 bytes"); return; }
    this.queue.push(tag);
    this.next();
  }

  next() {
    if (this.uploading != null || this.queue.length === 0) return;
    this.uploading = this.queue.shift();
    this.offer(this.uploading, false);
  }

  offer(tag, replace) {
    const job = this.pending.get(tag);
    job.replace = replace;
    this.send(encode.fileUpload(tag, replace, job.file.size, job.file.lastModified, job.path));
  }

  download(path, name, size) {
    const tag = this.nextTag++;
    this.pending.set(tag, { kind: "download", path, row: this.transferRow(tag, `↓ ${name}`, size) });
    this.send(encode.fileDownload(tag, path));
  }

  ticket(job, e) {
    if (job.kind === "download") {
      // The browser's own download: its manager saves the file where the user's browser does.
      const link = document.createElement("a");
      link.href = `/files/download/${e.ticket}`;
      link.download = e.name;
      link.hidden = true;
      document.body.append(link);
      link.click();
      link.remove();
      return;
    }
    const request = new XMLHttpRequest();
    job.request = request;
    request.open("POST", `/files/upload/${e.ticket}`);
    request.setRequestHeader("Content-Type", "application/octet-stream");
    // The outcome arrives as a file event; the request's own end only matters when it broke.
    request.send(job.file);
  }

  askReplace(tag, job, path) {
    const dialog = $("file-exists");
    dialog.querySelector("p").textContent = `${this.terms.root}/${path} already exists on the host. Replace it?`;
    dialog.returnValue = "";
    dialog.onclose = () => {
      if (dialog.returnValue === "replace") this.offer(tag, true); else this.finish(tag, job, "skipped: it exists");
    };
    dialog.showModal();
  }

  transferRow(tag, label, size) {
    const item = document.createElement("li");
    const text = document.createElement("span");
    text.textContent = `${label} (${formatBytes(size)})`;
    const bar = document.createElement("progress");
    bar.max = Math.max(1, size);
    bar.value = 0;
    const state = document.createElement("span");
    state.className = "state";
    const cancel = document.createElement("button");
    cancel.type = "button";
    cancel.textContent = "Cancel";
    cancel.addEventListener("click", () => this.cancel(tag));
    item.append(text, bar, state, cancel);
    $("files-transfers").prepend(item);
    $("files-transfers-box").hidden = false;
    // A transfer shows its progress and its Cancel button at once, panel closed or not.
    if (this.panel.hidden) this.toggle(true);
    return { item, bar, state, cancel, started: performance.now() };
  }

  progress(job, done, total) {
    job.row.bar.value = done;
    const seconds = (performance.now() - job.row.started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const eta = rate > 0 ? Math.round((total - done) / rate) : null;
    job.row.state.textContent = `${Math.floor((done * 100) / Math.max(1, total))} % · ${formatBytes(rate)}/s${eta != null ? ` · ${eta} s left` : ""}`;
  }

  cancel(tag) {
    const job = this.pending.get(tag);
    if (!job) return;
    job.request?.abort();
    this.queue = this.queue.filter((queued) => queued !== tag);
    this.send(encode.fileCancel(tag));
    this.finish(tag, job, "cancelled");
  }

  finish(tag, job, outcome) {
    if (!this.pending.has(tag)) return;
    this.pending.delete(tag);
    job.row.cancel.remove();
    if (outcome === "done") job.row.bar.value = job.row.bar.max;
    job.row.state.textContent = outcome === "done" ? "done" : outcome;
    job.row.item.dataset.outcome = outcome === "done" ? "done" : "failed";
    if (this.uploading === tag) { this.uploading = null; this.next(); }
    if (outcome === "done" && job.kind === "upload" && !this.panel.hidden) this.open(this.path);
  }
}
