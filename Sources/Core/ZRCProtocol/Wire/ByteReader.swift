/// Reads big-endian fields from bytes a peer sent.
///
/// Every read checks the remaining length first and throws `WireError` instead of trapping, and no
/// read allocates more than the bytes already present: a length field is compared with what is left
/// before anything is copied. `context` names the value being decoded so errors say where it broke.
public struct ByteReader: Sendable {
    private let bytes: ArraySlice<UInt8>
    private var position: Int
    /// What is being decoded, e.g. "frameUpdate message"; used in error messages.
    public let context: String

    public init(_ bytes: ArraySlice<UInt8>, context: String) {
        self.bytes = bytes
        self.position = bytes.startIndex
        self.context = context
    }

    public init(_ bytes: [UInt8], context: String) {
        self.init(bytes[...], context: context)
    }

    public var remainingCount: Int { bytes.endIndex - position }
    public var isAtEnd: Bool { position == bytes.endIndex }

    /// Reads a fixed-width integer in network byte order (signed types as two's complement).
    public mutating func read<T: FixedWidthInteger>(_: T.Type, _ field: String) throws(WireError) -> T {
        let size = MemoryLayout<T>.size
        try require(size, field)
        var value: UInt64 = 0
        for index in position..<(position + size) { value = value << 8 | UInt64(bytes[index]) }
        position += size
        return T(truncatingIfNeeded: value)
    }

    public mutating func readUInt8(_ field: String) throws(WireError) -> UInt8 { try read(UInt8.self, field) }
    public mutating func readUInt16(_ field: String) throws(WireError) -> UInt16 { try read(UInt16.self, field) }
    public mutating func readUInt32(_ field: String) throws(WireError) -> UInt32 { try read(UInt32.self, field) }
    public mutating func readUInt64(_ field: String) throws(WireError) -> UInt64 { try read(UInt64.self, field) }
    public mutating func readInt16(_ field: String) throws(WireError) -> Int16 { try read(Int16.self, field) }
    public mutating func readInt32(_ field: String) throws(WireError) -> Int32 { try read(Int32.self, field) }

    /// A bool is one byte, 0 or 1; anything else means the peer and we disagree on the layout.
    public mutating func readBool(_ field: String) throws(WireError) -> Bool {
        switch try readUInt8(field) {
        case 0: return false
        case 1: return true
        case let other: throw invalid(field, "is \(other), but a bool must be 0 or 1")
        }
    }

    /// Exactly `count` raw bytes (fixed-size fields such as keys and IDs).
    public mutating func readBytes(count: Int, _ field: String) throws(WireError) -> [UInt8] {
        Array(try readSlice(count: count, field))
    }

    /// Exactly `count` bytes without copying, e.g. to move a secret straight into `SecretBytes`.
    public mutating func readSlice(count: Int, _ field: String) throws(WireError) -> ArraySlice<UInt8> {
        try require(count, field)
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    /// A u16 length followed by that many UTF-8 bytes, at most `maxLength` (default 4096).
    public mutating func readString(_ field: String, maxLength: Int = WireLimits.maxStringBytes)
        throws(WireError) -> String
    {
        let length = Int(try readUInt16("\(field) length"))
        return try readUTF8(length: length, maxLength: maxLength, field)
    }

    /// A u8 length followed by that many UTF-8 bytes; used where compactness matters (invites).
    public mutating func readShortString(_ field: String) throws(WireError) -> String {
        let length = Int(try readUInt8("\(field) length"))
        return try readUTF8(length: length, maxLength: Int(UInt8.max), field)
    }

    /// A u32 length followed by that many bytes, at most `maxLength`. The length is checked against
    /// both the limit and the bytes actually present before anything is copied.
    public mutating func readBlob(_ field: String, maxLength: Int) throws(WireError) -> [UInt8] {
        let length = Int(try readUInt32("\(field) length"))
        guard length <= maxLength else {
            throw WireError(.lengthTooLarge, "\(context): \(field) announces \(length) bytes, limit is \(maxLength)")
        }
        return try readBytes(count: length, field)
    }

    /// A u32 length that must equal `expected`, followed by that many bytes (pixel buffers whose size
    /// follows from their dimensions).
    public mutating func readBlob(_ field: String, exactLength expected: Int) throws(WireError) -> [UInt8] {
        let length = Int(try readUInt32("\(field) length"))
        guard length == expected else {
            throw invalid(field, "has \(length) bytes, but its dimensions require \(expected)")
        }
        return try readBytes(count: length, field)
    }

    /// An unsigned LEB128 varint of at most `maximum`: canonical only (no byte of a longer
    /// encoding than the value needs, i.e. a last byte of 0 after the first), at most 10 bytes.
    public mutating func readVarint(_ field: String, maximum: UInt64 = .max) throws(WireError) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<10 {
            let byte = try readUInt8(field)
            let bits = UInt64(byte & 0x7F)
            // The tenth byte holds bit 63 alone.
            guard index < 9 || bits <= 1 else { throw invalid(field, "is a varint beyond 64 bits") }
            value |= bits << (7 * UInt64(index))
            if byte & 0x80 == 0 {
                guard byte != 0 || index == 0 else { throw invalid(field, "is a varint longer than its value needs") }
                guard value <= maximum else { throw invalid(field, "is \(value), at most \(maximum)") }
                return value
            }
        }
        throw invalid(field, "is a varint beyond 64 bits")
    }

    /// A varint length followed by that many bytes, at most `maxLength`, checked against the limit
    /// and the bytes present before anything is copied.
    public mutating func readVarintBlob(_ field: String, maxLength: Int) throws(WireError) -> [UInt8] {
        let length = try readVarint("\(field) length")
        guard length <= UInt64(maxLength) else {
            throw WireError(.lengthTooLarge, "\(context): \(field) announces \(length) bytes, limit is \(maxLength)")
        }
        return try readBytes(count: Int(length), field)
    }

    /// Call after the last field: a value followed by extra bytes is as wrong as a short one.
    public func expectEnd() throws(WireError) {
        guard isAtEnd else {
            throw WireError(.trailingBytes, "\(context): \(remainingCount) unexpected bytes after the last field")
        }
    }

    /// An `invalidValue` error naming this reader's context and the field.
    public func invalid(_ field: String, _ problem: String) -> WireError {
        WireError(.invalidValue, "\(context): \(field) \(problem)")
    }

    private mutating func readUTF8(length: Int, maxLength: Int, _ field: String) throws(WireError) -> String {
        guard length <= maxLength else {
            throw WireError(.lengthTooLarge, "\(context): \(field) is \(length) bytes, limit is \(maxLength)")
        }
        try require(length, field)
        let utf8 = bytes[position..<(position + length)]
        guard let string = String(validating: utf8, as: UTF8.self) else {
            throw WireError(.invalidUTF8, "\(context): \(field) is not valid UTF-8")
        }
        position += length
        return string
    }

    private func require(_ count: Int, _ field: String) throws(WireError) {
        precondition(count >= 0, "negative byte count for \(field)")  // our bug, not the peer's
        guard count <= remainingCount else {
            throw WireError(.truncated, "\(context): \(field) needs \(count) bytes, only \(remainingCount) left")
        }
    }
}
