/// Lower-case hex for identifiers in logs and error messages.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var utf8: [UInt8] = []
        for byte in bytes {
            utf8.append(digits[Int(byte >> 4)])
            utf8.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// The bytes of lower-case hex (what `encode` writes); nil for anything else, odd lengths
    /// and upper case included, so one value has one spelling.
    public static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count.isMultiple(of: 2) else { return nil }
        func nibble(_ character: UInt8) -> UInt8? {
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        for index in stride(from: 0, to: utf8.count, by: 2) {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
