#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ZRCProtocol

/// The text form of a stored key: standard padded base64 (RFC 4648 §4), one line.
///
/// Both stores keep keys as text (the Secret Service password API takes text; a key file stays
/// printable), so a key can move between them. Encoding and decoding work in buffers this type
/// allocates and wipes, never in `String`s or arrays that would leave copies behind.
enum KeyText {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encodedLength(ofByteCount count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Calls `body` with the NUL-terminated base64 text of `key` followed by `suffix`, then wipes it.
    static func withEncoded<R, E: Error>(
        _ key: SecretBytes, suffix: String = "",
        _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R
    ) throws(E) -> R {
        let suffixBytes = Array(suffix.utf8)
        let textLength = encodedLength(ofByteCount: key.count) + suffixBytes.count
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: textLength + 1)
        buffer.initialize(repeating: 0)
        defer {
            explicit_bzero(buffer.baseAddress!, buffer.count)
            buffer.deallocate()
        }
        key.withUnsafeBytes { bytes in encode(bytes, into: buffer) }
        for (offset, byte) in suffixBytes.enumerated() {
            buffer[encodedLength(ofByteCount: key.count) + offset] = byte
        }
        // The terminating NUL stays outside the slice handed out but inside the allocation.
        return try body(UnsafeBufferPointer(rebasing: buffer[0..<textLength]))
    }

    /// Decodes base64 `text`, ignoring trailing ASCII whitespace. `nil` when it is not valid base64.
    static func decode(_ text: UnsafeBufferPointer<UInt8>) -> SecretBytes? {
        var end = text.count
        while end > 0, [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")]
            .contains(text[end - 1])
        {
            end -= 1
        }
        guard end > 0, end % 4 == 0 else { return nil }
        var padding = 0
        if text[end - 1] == UInt8(ascii: "=") { padding += 1 }
        if text[end - 2] == UInt8(ascii: "=") { padding += 1 }
        for index in 0..<(end - padding) where sextet(text[index]) == nil { return nil }

        let decodedCount = end / 4 * 3 - padding
        return SecretBytes(count: decodedCount) { output in
            var written = 0
            var quad = 0
            while quad < end {
                var group: UInt32 = 0
                for offset in 0..<4 {
                    let character = text[quad + offset]
                    let value = character == UInt8(ascii: "=") ? 0 : UInt32(sextet(character) ?? 0)
                    group = group << 6 | value
                }
                for shift in [16, 8, 0] where written < decodedCount {
                    output[written] = UInt8(truncatingIfNeeded: group >> UInt32(shift))
                    written += 1
                }
                quad += 4
            }
        }
    }

    private static func encode(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<UInt8>) {
        var written = 0
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            var group = UInt32(bytes[index]) << 16
            if remaining > 1 { group |= UInt32(bytes[index + 1]) << 8 }
            if remaining > 2 { group |= UInt32(bytes[index + 2]) }
            output[written] = alphabet[Int(group >> 18 & 0x3F)]
            output[written + 1] = alphabet[Int(group >> 12 & 0x3F)]
            output[written + 2] = remaining > 1 ? alphabet[Int(group >> 6 & 0x3F)] : UInt8(ascii: "=")
            output[written + 3] = remaining > 2 ? alphabet[Int(group & 0x3F)] : UInt8(ascii: "=")
            written += 4
            index += 3
        }
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
