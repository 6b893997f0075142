/// One unit of the byte stream after the preamble: a 5-byte header (u8 type, u32 body length) and
/// a body of 1…65535 bytes holding exactly one Noise message.
///
/// The length field is 32 bits although bodies fit in 16, so a peer announcing an oversized record
/// is visibly wrong (and reported as such) instead of silently wrapping around.
public struct Record: Sendable, Equatable {
    public static let headerLength = 5

    public enum RecordType: UInt8, Sendable, Hashable {
        /// A Noise handshake message.
        case handshake = 0x01
        /// A Noise transport message: one encrypted fragment of an application message.
        case transport = 0x02
        /// The host's refusal of a handshake: a u16 `HandshakeRejection` code, unencrypted, sent
        /// only before the handshake completes (see Schemas/session-protocol.md).
        case reject = 0x03
    }

    public var type: RecordType
    public var body: [UInt8]

    /// Our own code builds records from Noise output, so a body outside 1…65535 bytes is a bug here,
    /// not a peer's doing.
    public init(type: RecordType, body: [UInt8]) {
        precondition(
            (1...WireLimits.maxRecordBody).contains(body.count),
            "record body must be 1...\(WireLimits.maxRecordBody) bytes, got \(body.count)")
        self.type = type
        self.body = body
    }

    /// Header followed by body, ready to write to the socket.
    public func encode() -> [UInt8] {
        var writer = ByteWriter(reservingCapacity: Self.headerLength + body.count)
        encode(into: &writer)
        return writer.bytes
    }

    /// Appends header and body, so several records can share one write.
    public func encode(into writer: inout ByteWriter) {
        writer.write(type.rawValue)
        writer.write(UInt32(body.count))
        writer.write(bytes: body)
    }

    /// Validates a header. Returns the type and body length, or throws for an unknown type, an empty
    /// body or a body above the limit — before any body byte is buffered.
    static func parseHeader(typeByte: UInt8, length: UInt32) throws(WireError) -> (RecordType, Int) {
        guard let type = RecordType(rawValue: typeByte) else {
            throw WireError(
                .unknownRecordType,
                "record type 0x\(String(typeByte, radix: 16)) is unknown (expected 0x01 handshake or 0x02 transport); "
                    + "the peer speaks a different protocol or the stream is out of step")
        }
        guard length > 0 else {
            throw WireError(.emptyRecord, "a \(type) record announced an empty body; no record may be empty")
        }
        guard length <= UInt32(WireLimits.maxRecordBody) else {
            throw WireError(
                .lengthTooLarge,
                "a \(type) record announced \(length) bytes, limit is \(WireLimits.maxRecordBody)")
        }
        return (type, Int(length))
    }
}
