/// CPace, the balanced PAKE of draft-irtf-cfrg-cpace (versions 19–21 share these vectors), for
/// ristretto255 and SHA-512, in initiator–responder mode. Both sides derive a generator from the
/// password-related string (PRS), the channel identifier (CI) and the session id (sid), exchange
/// one element each with their associated data (AD), and get the intermediate session key ISK.
/// Someone without the PRS learns nothing to test guesses against offline: each run is one guess.
///
/// Pure functions over a `CPaceGroup`; the two roles are `CPaceInitiator` and `CPaceResponder`.
public enum CPace {
    /// Domain separation: "CPace" + "Ristretto255", and the same with "_ISK" for the key.
    static let dsi = Array("CPaceRistretto255".utf8)
    static let dsiISK = Array("CPaceRistretto255_ISK".utf8)
    /// SHA-512's block: the DSI, the PRS and zero padding fill the first one.
    static let hashBlockLength = 128
    public static let elementLength = 32
    public static let keyLength = 64
    /// Limits on what a peer's message may carry, checked before anything is copied.
    public static let maximumADLength = 8192
    public static let maximumMessageLength = 1 + elementLength + 2 + maximumADLength

    /// Unsigned LEB128 of `length`: the draft's `prepend_len` prefix.
    static func lengthPrefix(_ length: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var value = length
        repeat {
            let low = UInt8(value & 0x7F)
            value >>= 7
            bytes.append(value != 0 ? low | 0x80 : low)
        } while value != 0
        return bytes
    }

    /// The draft's `lv_cat`: each part prefixed by its length.
    static func lengthValueConcatenation(_ parts: [[UInt8]]) -> [UInt8] {
        var result: [UInt8] = []
        for part in parts {
            result += lengthPrefix(part.count)
            result += part
        }
        return result
    }

    /// `lv_cat(DSI, PRS, zero padding, CI, sid)`, the padding sized so the first three fields fill
    /// one SHA-512 block (none when the PRS is longer).
    static func generatorString(prs: [UInt8], ci: [UInt8], sid: [UInt8]) -> [UInt8] {
        let used = lengthPrefix(dsi.count).count + dsi.count + lengthPrefix(prs.count).count + prs.count
        let padding = max(0, hashBlockLength - 1 - used)
        return lengthValueConcatenation([dsi, prs, [UInt8](repeating: 0, count: padding), ci, sid])
    }

    /// The session's generator: the element of SHA-512(generator string).
    static func generator(prs: SecretBytes, ci: [UInt8], sid: [UInt8], group: any CPaceGroup) -> [UInt8] {
        var string = prs.withUnsafeBytes { generatorString(prs: Array($0), ci: ci, sid: sid) }
        defer { string.withUnsafeMutableBytes { wipe($0) } }
        return group.element(fromHash: group.sha512([string]))
    }

    /// ISK = SHA-512(lv_cat(DSI_ISK, sid, K) ‖ lv_cat(Ya, ADa) ‖ lv_cat(Yb, ADb)), the initiator's
    /// element first on both sides.
    static func intermediateKey(sid: [UInt8], shared: SecretBytes, transcript: [UInt8], group: any CPaceGroup) -> SecretBytes {
        var input = shared.withUnsafeBytes { lengthValueConcatenation([dsiISK, sid, Array($0)]) } + transcript
        defer { input.withUnsafeMutableBytes { wipe($0) } }
        var key = group.sha512([input])
        defer { key.withUnsafeMutableBytes { wipe($0) } }
        return SecretBytes(key)
    }

    /// One side's message: `lv_cat(Y, AD)`.
    static func message(element: [UInt8], ad: [UInt8]) -> [UInt8] {
        lengthValueConcatenation([element, ad])
    }

    /// Reads a peer's `lv_cat(Y, AD)` strictly: a 32-byte Y, a canonical length, nothing after.
    static func parse(_ message: [UInt8]) throws(CPaceError) -> (element: [UInt8], ad: [UInt8]) {
        guard message.count <= maximumMessageLength else {
            throw CPaceError(.malformedMessage, "a message of \(message.count) bytes is over the limit of \(maximumMessageLength)")
        }
        guard message.count >= 2 + elementLength, message[0] == UInt8(elementLength) else {
            throw CPaceError(.malformedMessage, "a message must start with a \(elementLength)-byte element")
        }
        let element = Array(message[1...elementLength])
        var index = 1 + elementLength
        var length = 0
        var shift = 0
        while true {
            guard index < message.count, shift <= 14 else { throw CPaceError(.malformedMessage, "the AD length is cut off or too long") }
            let byte = message[index]
            index += 1
            length |= Int(byte & 0x7F) << shift
            shift += 7
            if byte & 0x80 == 0 {
                // Canonical: a last byte of 0 after the first is a longer encoding than needed.
                guard byte != 0 || shift == 7 else { throw CPaceError(.malformedMessage, "the AD length is not canonical") }
                break
            }
        }
        guard length <= maximumADLength else {
            throw CPaceError(.malformedMessage, "an AD of \(length) bytes is over the limit of \(maximumADLength)")
        }
        guard message.count - index == length else {
            throw CPaceError(.malformedMessage, "the AD announces \(length) bytes, the message holds \(message.count - index)")
        }
        return (element, Array(message[index...]))
    }

    static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        for index in buffer.indices { buffer[index] = 0 }
    }
}
