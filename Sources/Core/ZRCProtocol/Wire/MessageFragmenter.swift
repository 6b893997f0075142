/// Splits an encoded application message into transport plaintexts that each fit one record after
/// encryption.
///
/// Layout of each plaintext: u8 flags (bit 0 FIRST, bit 1 LAST), then for a FIRST fragment the u32
/// total message length, then the chunk. A message that fits in one plaintext is a single fragment
/// with both bits set. Every chunk carries at least one byte.
public struct MessageFragmenter: Sendable {
    /// Largest plaintext produced, flags and length included.
    public let maxPlaintextLength: Int

    /// `maxPlaintextLength` defaults to the record body limit minus the AEAD tag. It must leave room
    /// for the FIRST header and one byte of message (6 bytes); smaller values are a bug in the caller.
    public init(maxPlaintextLength: Int = WireLimits.maxTransportPlaintext) {
        precondition(
            maxPlaintextLength > FragmentFlags.firstHeaderLength,
            "maxPlaintextLength must be at least \(FragmentFlags.firstHeaderLength + 1)")
        self.maxPlaintextLength = maxPlaintextLength
    }

    /// The plaintexts for `message`, in sending order. `message` is our own encoder's output, so an
    /// empty one or one beyond the u32 length field is a programming error.
    public func fragments(of message: [UInt8]) -> [[UInt8]] {
        precondition(!message.isEmpty, "an application message is never empty")
        precondition(message.count <= Int(UInt32.max), "a message must fit the u32 length field")
        var result: [[UInt8]] = []
        var offset = 0
        while offset < message.count {
            let isFirst = offset == 0
            let room = maxPlaintextLength - (isFirst ? FragmentFlags.firstHeaderLength : 1)
            let end = min(message.count, offset + room)
            var flags: FragmentFlags = []
            if isFirst { flags.insert(.first) }
            if end == message.count { flags.insert(.last) }
            var writer = ByteWriter(reservingCapacity: maxPlaintextLength)
            writer.write(flags.rawValue)
            if isFirst { writer.write(UInt32(message.count)) }
            writer.write(bytes: message[offset..<end])
            result.append(writer.bytes)
            offset = end
        }
        return result
    }
}
