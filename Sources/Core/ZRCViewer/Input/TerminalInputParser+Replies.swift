import ZRCProtocol

/// The terminal's answers to the viewer's queries, as they appear in its input.
extension TerminalInputParser {
    /// The body of an APC or DCS string up to its terminator, ST (`ESC \`) or BEL.
    mutating func continueReplyString() -> [TerminalEvent]? {
        guard var string = replyString else { return nil }
        var index = 0
        while index < pending.count {
            let byte = pending[index]
            if byte == 0x07 || byte == 0x1B {
                if byte == 0x1B, index + 1 >= pending.count { break }  // ESC at the end: wait for the next byte
                let terminatorLength = byte == 0x1B && pending[index + 1] == UInt8(ascii: "\\") ? 2 : 1
                if string.body.count + index <= Self.maximumReply { string.body += pending[..<index] }
                pending.removeFirst(index + terminatorLength)
                replyString = nil
                return Self.reply(string: string.body, introducer: string.introducer).map { [.reply($0)] } ?? []
            }
            index += 1
        }
        // Keep collecting (bounded): an over-long string is dropped, but still skipped to its end.
        if string.body.count + index <= Self.maximumReply { string.body += pending[..<index] } else { string.body = [0] }
        pending.removeFirst(index)
        replyString = string
        return nil
    }

    /// Replies carried by control sequences: DA1, XTWINOPS sizes, DECRPM, kitty keyboard flags.
    static func reply(body: [UInt8], final: UInt8) -> TerminalReply? {
        let text = String(decoding: body, as: UTF8.self)
        let isPrivate = text.hasPrefix("?")
        let numbers = { (text: Substring) in text.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? -1 } }
        switch final {
        case UInt8(ascii: "c") where isPrivate:
            return .deviceAttributes(numbers(text.dropFirst()).filter { $0 >= 0 })
        case UInt8(ascii: "t") where !isPrivate:
            let fields = numbers(text[...])
            guard fields.count == 3, fields.allSatisfy({ $0 >= 0 }) else { return nil }
            switch fields[0] {
            case 6: return .cellPixels(width: fields[2], height: fields[1])
            case 4: return .textAreaPixels(width: fields[2], height: fields[1])
            default: return nil
            }
        case UInt8(ascii: "y") where isPrivate && text.hasSuffix("$"):
            let fields = numbers(text.dropFirst().dropLast())
            guard fields.count == 2, fields.allSatisfy({ $0 >= 0 }) else { return nil }
            return .modeReport(mode: fields[0], value: fields[1])
        case UInt8(ascii: "u") where isPrivate:
            guard let flags = Int(text.dropFirst()), flags >= 0 else { return nil }
            return .keyboardFlags(flags)
        default:
            return nil
        }
    }

    /// Replies carried by strings: kitty graphics (APC) and XTVERSION (DCS).
    static func reply(string body: [UInt8], introducer: UInt8) -> TerminalReply? {
        let text = String(decoding: body, as: UTF8.self)
        if introducer == UInt8(ascii: "P") {
            guard text.hasPrefix(">|") else { return nil }
            return .terminalVersion(TerminalSafeText.sanitized(String(text.dropFirst(2))))
        }
        // `G` keys `;` message, e.g. `Gi=31;OK`.
        guard text.hasPrefix("G") else { return nil }
        let parts = text.dropFirst().split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
        let keys = parts.first.map { $0.split(separator: ",") } ?? []
        let id = keys.lazy.compactMap { $0.hasPrefix("i=") ? Int($0.dropFirst(2)) : nil }.first ?? 0
        let message = parts.count > 1 ? String(parts[1]) : ""
        return .graphics(id: id, message: TerminalSafeText.sanitized(message))
    }
}
