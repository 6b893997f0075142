import ZRCProtocol

/// Decodes the bytes a terminal sends in raw mode into key, mouse, paste and focus events:
/// UTF-8 text, C0 controls (Ctrl+letter), ESC-prefixed Alt, CSI/SS3 keys with xterm modifier
/// parameters, the kitty keyboard protocol (`CSI code;mods:event u`), SGR mouse reports
/// (`CSI < b;x;y M/m`), bracketed paste and focus reports, and the terminal's answers to the
/// viewer's queries (`TerminalReply`). Sans-IO: bytes in any chunking.
///
/// A lone ESC is ambiguous until the next byte (or none) arrives: the caller calls
/// `flushPendingEscape()` when no byte followed within a short time (the viewer uses 50 ms).
/// Memory is bounded: an escape sequence longer than `maximumSequence` is dropped, a paste longer
/// than `maximumPaste` is cut there, a reply string (APC, DCS) longer than `maximumReply` too.
public struct TerminalInputParser: Sendable {
    public static let maximumSequence = 64
    public static let maximumPaste = 1 << 20
    public static let maximumReply = 4096

    var pending: [UInt8] = []
    private var paste: [UInt8]?
    /// Inside an APC or DCS string (a kitty graphics or XTVERSION reply): its introducer and body.
    var replyString: (introducer: UInt8, body: [UInt8])?

    public init() {}

    /// Bytes held for an unfinished sequence or paste (bounded, see above).
    public var bufferedBytes: Int { pending.count + (paste?.count ?? 0) + (replyString?.body.count ?? 0) }

    /// Whether a lone ESC, an unfinished sequence or an unterminated reply string waits for more
    /// bytes; the caller then calls `flushPendingEscape()` if nothing follows in time.
    public var hasPendingEscape: Bool { pending.first == 0x1B || replyString != nil }

    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [TerminalEvent] {
        pending.append(contentsOf: bytes)
        var events: [TerminalEvent] = []
        while let event = nextEvent() { events.append(contentsOf: event) }
        return events
    }

    /// No byte followed in time: a lone ESC was the Escape key, ESC and one more byte an Alt
    /// combination; an unfinished sequence is dropped.
    /// A reply string left open was the user's Alt+_ or Alt+Shift+P after all (a terminal sends its
    /// replies in one go): its bytes are read again as keys.
    public mutating func flushPendingEscape() -> [TerminalEvent] {
        if let string = replyString {
            replyString = nil
            let rest = string.body + pending
            pending = []
            return [Self.control(string.introducer, alt: true)] + feed(rest)
        }
        guard pending.first == 0x1B else { return [] }
        defer { pending.removeAll() }
        switch pending.count {
        case 1: return [.key(keysym: TerminalKeysym.escape, modifiers: [], action: .press)]
        case 2 where pending[1] < 0x80: return [Self.control(pending[1], alt: true)]
        default: return []
        }
    }

    /// The next event(s) at the front of `pending`, consuming their bytes; nil when more bytes are needed.
    private mutating func nextEvent() -> [TerminalEvent]? {
        if paste != nil { return continuePaste() }
        if replyString != nil { return continueReplyString() }
        guard let first = pending.first else { return nil }
        if first == 0x1B { return escape() }
        if first < 0x80 {
            pending.removeFirst()
            return [Self.control(first, alt: false)]
        }
        // UTF-8: wait for the whole scalar; an invalid byte is dropped.
        let length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 1
        guard pending.count >= length else { return nil }
        let bytes = pending.prefix(length)
        pending.removeFirst(length)
        guard length > 1, let scalar = String(decoding: bytes, as: UTF8.self).unicodeScalars.first, scalar != "\u{FFFD}" else { return [] }
        return [.key(keysym: TerminalKeysym.character(scalar), modifiers: [], action: .press)]
    }

    /// A byte below 0x80 outside any sequence: a character or a control key.
    private static func control(_ byte: UInt8, alt: Bool) -> TerminalEvent {
        let altMod: KeyModifiers = alt ? [.alt] : []
        switch byte {
        case 0x0D, 0x0A: return .key(keysym: TerminalKeysym.returnKey, modifiers: altMod, action: .press)
        case 0x09: return .key(keysym: TerminalKeysym.tab, modifiers: altMod, action: .press)
        case 0x7F, 0x08: return .key(keysym: TerminalKeysym.backSpace, modifiers: altMod, action: .press)
        case 0x1B: return .key(keysym: TerminalKeysym.escape, modifiers: altMod, action: .press)
        case 0x00: return .key(keysym: 0x20, modifiers: altMod.union(.control), action: .press)
        case 0x01...0x1A: return .key(keysym: UInt32(byte) + 0x60, modifiers: altMod.union(.control), action: .press)
        case 0x1C...0x1F: return .key(keysym: UInt32(byte) + 0x40, modifiers: altMod.union(.control), action: .press)
        default: return .key(keysym: UInt32(byte), modifiers: altMod, action: .press)
        }
    }

    private mutating func escape() -> [TerminalEvent]? {
        guard pending.count >= 2 else { return nil }
        switch pending[1] {
        case UInt8(ascii: "["):
            return controlSequence()
        case UInt8(ascii: "O"):
            // SS3: F1–F4 and application-mode cursor keys.
            guard pending.count >= 3 else { return nil }
            let final = pending[2]
            pending.removeFirst(3)
            return Self.key(final: final, parameters: [], intermediate: nil).map { [$0] } ?? []
        case UInt8(ascii: "_"), UInt8(ascii: "P"):
            // APC `ESC _ G` (kitty graphics) and DCS `ESC P >` (XTVERSION) replies; otherwise
            // Alt+_ or Alt+Shift+P, which the third byte (or its absence) tells apart.
            guard pending.count >= 3 else { return nil }
            let expected = pending[1] == UInt8(ascii: "_") ? UInt8(ascii: "G") : UInt8(ascii: ">")
            guard pending[2] == expected else {
                let byte = pending[1]
                pending.removeFirst(2)
                return [Self.control(byte, alt: true)]
            }
            replyString = (pending[1], [])
            pending.removeFirst(2)
            return []
        case 0x1B:
            // ESC ESC: Alt+Escape, or an Escape followed by a sequence; take the first as Escape.
            pending.removeFirst()
            return [.key(keysym: TerminalKeysym.escape, modifiers: [], action: .press)]
        default:
            let byte = pending[1]
            guard byte < 0x80 else {
                pending.removeFirst()
                return [.key(keysym: TerminalKeysym.escape, modifiers: [], action: .press)]
            }
            pending.removeFirst(2)
            return [Self.control(byte, alt: true)]
        }
    }

    /// `ESC [` parameters, intermediates, final byte.
    private mutating func controlSequence() -> [TerminalEvent]? {
        var index = 2
        while index < pending.count, !(0x40...0x7E).contains(pending[index]) { index += 1 }
        guard index < pending.count else {
            if pending.count > Self.maximumSequence { pending.removeAll() }
            return nil
        }
        let body = Array(pending[2..<index])
        let final = pending[index]
        pending.removeFirst(index + 1)
        if body.first == UInt8(ascii: "<"), final == UInt8(ascii: "M") || final == UInt8(ascii: "m") {
            return Self.mouse(body.dropFirst(), pressed: final == UInt8(ascii: "M")).map { [$0] } ?? []
        }
        let text = String(decoding: body, as: UTF8.self)
        if final == UInt8(ascii: "~"), text == "200" {
            paste = []
            return []
        }
        if body.isEmpty, final == UInt8(ascii: "I") || final == UInt8(ascii: "O") { return [.focus(final == UInt8(ascii: "I"))] }
        if let reply = Self.reply(body: body, final: final) { return [.reply(reply)] }
        guard body.allSatisfy({ (0x30...0x3B).contains($0) }) else { return [] }  // private or unknown: ignored
        let parameters = text.split(separator: ";", omittingEmptySubsequences: false).map { field in
            field.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
        }
        if final == UInt8(ascii: "u") { return Self.kittyKey(parameters).map { [$0] } ?? [] }
        return Self.key(final: final, parameters: parameters, intermediate: nil).map { [$0] } ?? []
    }

    private mutating func continuePaste() -> [TerminalEvent]? {
        let end: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]  // ESC [ 2 0 1 ~
        if let range = pending.firstRange(of: end) {
            let text = (paste ?? []) + pending[..<range.lowerBound]
            pending.removeSubrange(..<range.upperBound)
            paste = nil
            return [.paste(String(decoding: text.prefix(Self.maximumPaste), as: UTF8.self))]
        }
        // Keep a possible partial terminator; move the rest into the paste (bounded).
        let keep = min(pending.count, end.count - 1)
        let moved = pending.count - keep
        var collected = paste ?? []
        collected.append(contentsOf: pending.prefix(max(0, min(moved, Self.maximumPaste - collected.count))))
        paste = collected
        pending.removeFirst(moved)
        return nil
    }

    /// xterm's modifier parameter: 1 + (shift 1, alt 2, ctrl 4, meta/super 8).
    static func modifiers(_ parameter: Int) -> KeyModifiers {
        let bits = max(0, parameter - 1)
        var result: KeyModifiers = []
        if bits & 1 != 0 { result.insert(.shift) }
        if bits & 2 != 0 { result.insert(.alt) }
        if bits & 4 != 0 { result.insert(.control) }
        if bits & 8 != 0 { result.insert(.super) }
        return result
    }

    private static func key(final: UInt8, parameters: [[Int]], intermediate: UInt8?) -> TerminalEvent? {
        let first = parameters.first?.first ?? 1
        let modifiers = Self.modifiers(parameters.count > 1 ? parameters[1].first ?? 1 : 1)
        let keysym: UInt32
        switch final {
        case UInt8(ascii: "A"): keysym = TerminalKeysym.up
        case UInt8(ascii: "B"): keysym = TerminalKeysym.down
        case UInt8(ascii: "C"): keysym = TerminalKeysym.right
        case UInt8(ascii: "D"): keysym = TerminalKeysym.left
        case UInt8(ascii: "H"): keysym = TerminalKeysym.home
        case UInt8(ascii: "F"): keysym = TerminalKeysym.end
        case UInt8(ascii: "Z"): return .key(keysym: TerminalKeysym.tab, modifiers: modifiers.union(.shift), action: .press)
        case UInt8(ascii: "P")...UInt8(ascii: "S"): keysym = TerminalKeysym.function(Int(final - UInt8(ascii: "P")) + 1)
        case UInt8(ascii: "~"):
            let tilde: [Int: UInt32] = [
                1: TerminalKeysym.home, 2: TerminalKeysym.insert, 3: TerminalKeysym.delete, 4: TerminalKeysym.end,
                5: TerminalKeysym.pageUp, 6: TerminalKeysym.pageDown, 7: TerminalKeysym.home, 8: TerminalKeysym.end,
                11: TerminalKeysym.function(1), 12: TerminalKeysym.function(2), 13: TerminalKeysym.function(3),
                14: TerminalKeysym.function(4), 15: TerminalKeysym.function(5), 17: TerminalKeysym.function(6),
                18: TerminalKeysym.function(7), 19: TerminalKeysym.function(8), 20: TerminalKeysym.function(9),
                21: TerminalKeysym.function(10), 23: TerminalKeysym.function(11), 24: TerminalKeysym.function(12),
            ]
            guard let value = tilde[first] else { return nil }
            keysym = value
        default:
            return nil
        }
        return .key(keysym: keysym, modifiers: modifiers, action: .press)
    }

    /// kitty keyboard protocol: `CSI code[:alternates] ; mods[:event] u`.
    private static func kittyKey(_ parameters: [[Int]]) -> TerminalEvent? {
        guard let code = parameters.first?.first, code > 0 else { return nil }
        let modifierField = parameters.count > 1 ? parameters[1] : [1]
        let modifiers = Self.modifiers(modifierField.first ?? 1)
        let action: KeyAction = switch modifierField.count > 1 ? modifierField[1] : 1 {
        case 2: .repeat
        case 3: .release
        default: .press
        }
        let keysym: UInt32
        switch code {
        case 9: keysym = TerminalKeysym.tab
        case 13: keysym = TerminalKeysym.returnKey
        case 27: keysym = TerminalKeysym.escape
        case 127: keysym = TerminalKeysym.backSpace
        case 57_344...57_454:
            return nil  // functional keys in the private use area (keypad, media, lone modifiers): not mapped yet
        default:
            // Any number a terminal (or garbage) sends: out-of-range codes are no key, never a trap.
            guard code >= 0x20, let value = UInt32(exactly: code), let scalar = Unicode.Scalar(value) else { return nil }
            keysym = TerminalKeysym.character(scalar)
        }
        return .key(keysym: keysym, modifiers: modifiers, action: action)
    }

    /// SGR mouse: `b;x;y` with b = button (0–2, 3 none) + 4 shift + 8 alt + 16 ctrl + 32 motion + 64 wheel.
    private static func mouse(_ body: ArraySlice<UInt8>, pressed: Bool) -> TerminalEvent? {
        let numbers = String(decoding: body, as: UTF8.self).split(separator: ";").compactMap { Int($0) }
        guard numbers.count == 3, numbers.allSatisfy({ $0 >= 0 }) else { return nil }
        let (code, x, y) = (numbers[0], numbers[1], numbers[2])
        var modifiers: KeyModifiers = []
        if code & 4 != 0 { modifiers.insert(.shift) }
        if code & 8 != 0 { modifiers.insert(.alt) }
        if code & 16 != 0 { modifiers.insert(.control) }
        let low = code & 3
        let kind: MouseReport.Kind
        if code & 64 != 0 {
            guard pressed else { return nil }
            kind = switch low {
            case 0: .scroll(dx: 0, dy: -1)
            case 1: .scroll(dx: 0, dy: 1)
            case 2: .scroll(dx: -1, dy: 0)
            default: .scroll(dx: 1, dy: 0)
            }
        } else if code & 32 != 0 {
            kind = .move(button: low == 3 ? nil : low + 1)
        } else if low == 3 {
            return nil  // a release without a button (legacy encodings only)
        } else {
            kind = pressed ? .press(button: low + 1) : .release(button: low + 1)
        }
        return .mouse(MouseReport(kind: kind, x: x, y: y, modifiers: modifiers))
    }
}
