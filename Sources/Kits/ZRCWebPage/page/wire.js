// The local WebSocket's messages (Schemas/web-viewer-protocol.md): a type byte, then big-endian
// fields. zrc-ctl → page below 0x80, page → zrc-ctl from 0x80. Reading checks every length
// against what arrived; a message that does not parse is dropped and reported, never half-used.

export const FromViewer = Object.freeze({
  hello: 0x01, frame: 0x02, cursor: 0x03, cursorVisible: 0x04, status: 0x05, clipboard: 0x06, end: 0x07, monitors: 0x08, files: 0x09,
});

export const ToViewer = Object.freeze({
  view: 0x81, drawn: 0x82, pointer: 0x83, wheel: 0x84, key: 0x85, text: 0x86, clipboard: 0x87, command: 0x88,
  fileList: 0x89, fileUpload: 0x8a, fileDownload: 0x8b, fileCancel: 0x8c,
});

export const PointerAction = Object.freeze({ move: 0, press: 1, release: 2 });

export const Command = Object.freeze({ disconnect: 1, ctrlAltDelete: 2, takeHostClipboard: 3, releaseAll: 4 });

const decoder = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

class Reader {
  constructor(buffer) {
    this.view = new DataView(buffer);
    this.at = 0;
  }
  need(count) {
    if (this.at + count > this.view.byteLength) throw new Error(`message ends early (needs ${count} bytes at ${this.at})`);
  }
  u8() { this.need(1); return this.view.getUint8(this.at++); }
  u16() { this.need(2); const v = this.view.getUint16(this.at); this.at += 2; return v; }
  u32() { this.need(4); const v = this.view.getUint32(this.at); this.at += 4; return v; }
  bytes(count) {
    this.need(count);
    const slice = new Uint8Array(this.view.buffer, this.view.byteOffset + this.at, count);
    this.at += count;
    return slice;
  }
  rest() { return this.bytes(this.view.byteLength - this.at); }
  string() { return decoder.decode(this.bytes(this.u16())); }
  end() { if (this.at !== this.view.byteLength) throw new Error(`${this.view.byteLength - this.at} bytes too many`); }
}

/** Parses one message from zrc-ctl; throws on anything malformed. */
export function decodeUpdate(buffer) {
  const r = new Reader(buffer);
  const type = r.u8();
  let update;
  switch (type) {
    case FromViewer.hello: {
      const version = r.u8();
      if (version !== 1) throw new Error(`page protocol ${version} is not 1`);
      const flags = r.u8();
      update = { type: "hello", viewOnly: (flags & 1) !== 0, clipboard: (flags & 2) !== 0, host: r.string() };
      break;
    }
    case FromViewer.frame: {
      const frame = {
        type: "frame", version: r.u32(), pictureWidth: r.u16(), pictureHeight: r.u16(),
        screenWidth: r.u32(), screenHeight: r.u32(),
        regionX: r.u16(), regionY: r.u16(), regionWidth: r.u16(), regionHeight: r.u16(), rects: [],
      };
      const count = r.u16();
      for (let i = 0; i < count; i++) {
        const rect = { x: r.u16(), y: r.u16(), width: r.u16(), height: r.u16(), encoding: r.u8() };
        const length = r.u32();
        if (rect.x + rect.width > frame.pictureWidth || rect.y + rect.height > frame.pictureHeight) {
          throw new Error("rect outside the picture");
        }
        if (rect.encoding === 1) {
          // A move: the picture's own pixels at (sourceX, sourceY) copied here.
          if (length !== 4) throw new Error("a move has 4 bytes");
          rect.sourceX = r.u16();
          rect.sourceY = r.u16();
          if (rect.sourceX + rect.width > frame.pictureWidth || rect.sourceY + rect.height > frame.pictureHeight) {
            throw new Error("move reads outside the picture");
          }
        } else if (rect.encoding === 0) {
          if (length !== rect.width * rect.height * 4) throw new Error("rect size does not match its pixels");
          rect.pixels = r.bytes(length);
        } else {
          throw new Error(`unknown rect encoding ${rect.encoding}`);
        }
        frame.rects.push(rect);
      }
      update = frame;
      break;
    }
    case FromViewer.cursor: {
      const hotX = r.u16(), hotY = r.u16(), width = r.u16(), height = r.u16();
      if (width * height === 0) { update = { type: "cursor", shape: null }; break; }
      if (width > 256 || height > 256 || hotX >= width || hotY >= height) throw new Error("bad cursor shape");
      update = { type: "cursor", shape: { hotX, hotY, width, height, rgba: r.bytes(width * height * 4) } };
      break;
    }
    case FromViewer.cursorVisible:
      update = { type: "cursorVisible", visible: r.u8() !== 0 };
      break;
    case FromViewer.status:
      update = { type: "status", status: JSON.parse(decoder.decode(r.rest())) };
      break;
    case FromViewer.clipboard:
      update = { type: "clipboard", text: decoder.decode(r.rest()) };
      break;
    case FromViewer.files:
      update = { type: "files", event: JSON.parse(decoder.decode(r.rest())) };
      break;
    case FromViewer.monitors: {
      const count = r.u8(), monitors = [];
      for (let i = 0; i < count; i++) {
        monitors.push({ x: r.u16(), y: r.u16(), width: r.u16(), height: r.u16(), primary: r.u8() === 1, name: r.string() });
      }
      update = { type: "monitors", monitors };
      break;
    }
    case FromViewer.end: {
      const kind = r.u8();
      update = { type: "end", takenOver: kind === 1, reason: decoder.decode(r.rest()) };
      break;
    }
    default:
      throw new Error(`unknown message type ${type}`);
  }
  r.end();
  return update;
}

class Writer {
  constructor(size) {
    this.buffer = new ArrayBuffer(size);
    this.view = new DataView(this.buffer);
    this.at = 0;
  }
  u8(v) { this.view.setUint8(this.at, v); this.at += 1; return this; }
  u16(v) { this.view.setUint16(this.at, v); this.at += 2; return this; }
  i16(v) { this.view.setInt16(this.at, v); this.at += 2; return this; }
  u32(v) { this.view.setUint32(this.at, v); this.at += 4; return this; }
  u64(v) { this.view.setBigUint64(this.at, BigInt(v)); this.at += 8; return this; }
  i64(v) { this.view.setBigInt64(this.at, BigInt(v)); this.at += 8; return this; }
  string(text, max) { const t = utf8Prefix(text, max); return this.u16(t.length).bytes(t); }
  bytes(array) { new Uint8Array(this.buffer, this.at, array.length).set(array); this.at += array.length; return this; }
  done() { return this.buffer.slice(0, this.at); }
}

const clamp16 = (v) => Math.max(0, Math.min(0xffff, Math.round(v)));
const clampSigned16 = (v) => Math.max(-0x8000, Math.min(0x7fff, Math.round(v)));

/** Cuts UTF-8 at a character boundary so it is at most `max` bytes. */
function utf8Prefix(text, max) {
  let bytes = encoder.encode(text);
  if (bytes.length <= max) return bytes;
  let end = max;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

export const encode = {
  view: (width, height, region) => new Writer(13).u8(ToViewer.view)
    .u16(clamp16(width)).u16(clamp16(height))
    .u16(clamp16(region.x)).u16(clamp16(region.y)).u16(clamp16(region.width)).u16(clamp16(region.height)).done(),
  drawn: (version) => new Writer(5).u8(ToViewer.drawn).u32(version >>> 0).done(),
  pointer: (action, button, x, y) => new Writer(7).u8(ToViewer.pointer).u8(action).u8(button).u16(clamp16(x)).u16(clamp16(y)).done(),
  wheel: (dx, dy, x, y) => new Writer(9).u8(ToViewer.wheel).i16(clampSigned16(dx)).i16(clampSigned16(dy))
    .u16(clamp16(x)).u16(clamp16(y)).done(),
  key: (pressed, key, code, modifiers) => {
    const k = utf8Prefix(key, 64), c = utf8Prefix(code, 64);
    return new Writer(8 + k.length + c.length).u8(ToViewer.key).u8(pressed ? 1 : 0).u16(modifiers)
      .u16(k.length).bytes(k).u16(c.length).bytes(c).done();
  },
  text: (text) => { const t = utf8Prefix(text, 16 * 1024); return new Writer(1 + t.length).u8(ToViewer.text).bytes(t).done(); },
  clipboard: (text) => { const t = utf8Prefix(text, 1 << 20); return new Writer(1 + t.length).u8(ToViewer.clipboard).bytes(t).done(); },
  command: (command) => new Writer(2).u8(ToViewer.command).u8(command).done(),
  // Paths are at most 4096 bytes of UTF-8 (files.js refuses a longer one before it gets here).
  fileList: (tag, path) => new Writer(7 + 3 * path.length).u8(ToViewer.fileList).u32(tag).string(path, 4096).done(),
  fileUpload: (tag, replace, size, modifiedMillis, path) => new Writer(24 + 3 * path.length).u8(ToViewer.fileUpload).u32(tag)
    .u8(replace ? 1 : 0).u64(size).i64(Math.trunc(modifiedMillis)).string(path, 4096).done(),
  fileDownload: (tag, path) => new Writer(7 + 3 * path.length).u8(ToViewer.fileDownload).u32(tag).string(path, 4096).done(),
  fileCancel: (tag) => new Writer(5).u8(ToViewer.fileCancel).u32(tag).done(),
};

/** KeyModifiers bits (ZRC's wire): shift, control, alt, super, altGr, capsLock, numLock. */
export function modifierBits(event) {
  let bits = 0;
  if (event.shiftKey) bits |= 1;
  if (event.ctrlKey) bits |= 2;
  if (event.altKey) bits |= 4;
  if (event.metaKey) bits |= 8;
  if (event.getModifierState && event.getModifierState("AltGraph")) bits |= 16;
  if (event.getModifierState && event.getModifierState("CapsLock")) bits |= 32;
  if (event.getModifierState && event.getModifierState("NumLock")) bits |= 64;
  return bits;
}
