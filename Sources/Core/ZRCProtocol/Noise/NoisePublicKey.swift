/// A Curve25519 public key: exactly 32 bytes, checked at construction so no shorter or longer
/// value can reach a DH call. Public keys are not secret, so the hex form is also the description
/// (it is what users compare when pinning a host).
public struct NoisePublicKey: Sendable, Hashable, CustomStringConvertible {
    /// DHLEN for 25519.
    public static let length = 32

    public let bytes: [UInt8]

    public init<Bytes: Collection>(bytes: Bytes) throws(NoiseError) where Bytes.Element == UInt8 {
        guard bytes.count == Self.length else {
            throw NoiseError(.invalidKey, "a public key must be \(Self.length) bytes, got \(bytes.count)")
        }
        self.bytes = Array(bytes)
    }

    /// Parses 64 hex digits (either case), e.g. a key from a config file or an invite.
    public init(hex: String) throws(NoiseError) {
        let digits = Array(hex.utf8)
        guard digits.count == Self.length * 2 else {
            throw NoiseError(.invalidKey, "a public key must be \(Self.length * 2) hex digits, got \(digits.count)")
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(Self.length)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else {
                throw NoiseError(.invalidKey, "a public key may contain only hex digits 0-9, a-f")
            }
            decoded.append(high << 4 | low)
        }
        self.bytes = decoded
    }

    /// Lower-case hex, the form used in files and shown to users.
    public var hex: String {
        let alphabet = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(alphabet[Int(byte >> 4)])
            text.append(alphabet[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    public var description: String { hex }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
