/// Appends big-endian fields; the mirror of `ByteReader`.
///
/// Writing never fails: strings longer than their limit are cut at a Unicode scalar boundary
/// (names and typed text come from users and systems we do not control, and a shortened name beats
/// a crashed host), while sizes only our own code can get wrong (a blob over 4 GiB) are
/// preconditions.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(reservingCapacity capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public var count: Int { bytes.count }

    public mutating func write<T: FixedWidthInteger>(_ value: T) {
        let size = MemoryLayout<T>.size
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }

    public mutating func write(_ value: Bool) { bytes.append(value ? 1 : 0) }

    /// Raw bytes with no length prefix (fixed-size fields).
    public mutating func write(bytes raw: some Sequence<UInt8>) { bytes.append(contentsOf: raw) }

    /// u16 length + UTF-8, cut to at most `maxLength` bytes.
    public mutating func write(string: String, maxLength: Int = WireLimits.maxStringBytes) {
        let utf8 = Self.utf8Prefix(of: string, maxBytes: min(maxLength, Int(UInt16.max)))
        write(UInt16(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// u8 length + UTF-8, cut to at most 255 bytes.
    public mutating func write(shortString string: String) {
        let utf8 = Self.utf8Prefix(of: string, maxBytes: Int(UInt8.max))
        write(UInt8(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// u32 length + bytes.
    public mutating func write(blob: some Collection<UInt8>) {
        precondition(blob.count <= Int(UInt32.max), "blob of \(blob.count) bytes cannot be length-prefixed with u32")
        write(UInt32(blob.count))
        bytes.append(contentsOf: blob)
    }

    /// An unsigned LEB128 varint: 7 bits a byte, least significant first, the high bit set on every
    /// byte but the last; minimal (the reader refuses longer encodings of the same value).
    public mutating func write(varint value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// varint length + bytes.
    public mutating func write(varintBlob blob: some Collection<UInt8>) {
        write(varint: UInt64(blob.count))
        bytes.append(contentsOf: blob)
    }

    /// The longest prefix of `string`'s UTF-8 that is at most `maxBytes` and ends on a scalar
    /// boundary, so the receiver's UTF-8 validation never fails on our own truncation.
    public static func utf8Prefix(of string: String, maxBytes: Int) -> [UInt8] {
        if string.utf8.count <= maxBytes { return Array(string.utf8) }
        var result: [UInt8] = []
        for scalar in string.unicodeScalars {
            if result.count + scalar.utf8.count > maxBytes { break }
            result.append(contentsOf: scalar.utf8)
        }
        return result
    }
}
