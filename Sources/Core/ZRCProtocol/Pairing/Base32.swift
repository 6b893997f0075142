/// RFC 4648 base32 with the lower-case alphabet and no padding: invites must survive being read
/// aloud, retyped and pasted through chat apps, and base32 has no case or punctuation to lose.
enum Base32 {
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    /// Value of each ASCII byte, or 0xFF for bytes outside the alphabet; upper case is accepted
    /// because people retype invites.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, symbol) in alphabet.enumerated() {
            table[Int(symbol)] = UInt8(value)
            if symbol >= UInt8(ascii: "a") { table[Int(symbol - 0x20)] = UInt8(value) }
        }
        return table
    }()

    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                output.append(alphabet[Int(buffer >> UInt32(bits) & 0x1F)])
            }
        }
        if bits > 0 { output.append(alphabet[Int(buffer << UInt32(5 - bits) & 0x1F)]) }
        return String(decoding: output, as: UTF8.self)
    }

    struct Decoded {
        var bytes: [UInt8]
        /// False when the length is impossible for unpadded base32 or the unused final bits are not
        /// zero: the text was cut short or its last character mistyped.
        var isCanonical: Bool
    }

    enum DecodeFailure: Error {
        /// A byte outside the alphabet at this offset of the input.
        case invalidCharacter(offset: Int, byte: UInt8)
    }

    /// Decodes as many whole bytes as the text holds, reporting whether it was exactly canonical,
    /// so a caller can tell a cut-off text (check its length field) from a typo.
    static func decodeLeniently(_ text: some Collection<UInt8>) throws(DecodeFailure) -> Decoded {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count * 5 / 8)
        var buffer: UInt32 = 0
        var bits = 0
        for (offset, symbol) in text.enumerated() {
            let value = values[Int(symbol)]
            guard value != 0xFF else { throw .invalidCharacter(offset: offset, byte: symbol) }
            buffer = (buffer << 5 | UInt32(value)) & 0xFFF
            bits += 5
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        let leftover = buffer & ((1 << UInt32(bits)) - 1)
        return Decoded(bytes: bytes, isCanonical: bits < 5 && leftover == 0)
    }
}
