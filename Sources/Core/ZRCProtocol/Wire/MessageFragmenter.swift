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
    public func fragments(of message: [UInt8]) -> [[UInt8]] { Array(plaintexts(of: message)) }

    /// The same plaintexts, each made when the sequence reaches it: a sender that seals and drops
    /// one before taking the next holds one plaintext at a time rather than a second copy of the
    /// whole message.
    public func plaintexts(of message: [UInt8]) -> Plaintexts {
        precondition(!message.isEmpty, "an application message is never empty")
        precondition(message.count <= Int(UInt32.max), "a message must fit the u32 length field")
        return Plaintexts(message: message, maxPlaintextLength: maxPlaintextLength)
    }

    /// How many plaintexts a `length`-byte message takes (at least one).
    public func plaintextCount(ofMessageLength length: Int) -> Int {
        let firstRoom = maxPlaintextLength - FragmentFlags.firstHeaderLength, room = maxPlaintextLength - 1
        return 1 + (max(0, length - firstRoom) + room - 1) / room
    }

    /// The bytes of all of a `length`-byte message's plaintexts together: the message, each one's
    /// flags and the FIRST one's u32 length.
    public func plaintextBytes(ofMessageLength length: Int) -> Int {
        length + FragmentFlags.firstHeaderLength - 1 + plaintextCount(ofMessageLength: length)
    }

    /// `message`'s plaintexts in order, made one at a time.
    public struct Plaintexts: Sequence, IteratorProtocol, Sendable {
        let message: [UInt8]
        let maxPlaintextLength: Int
        var offset = 0

        public mutating func next() -> [UInt8]? {
            guard offset < message.count else { return nil }
            let isFirst = offset == 0
            let room = maxPlaintextLength - (isFirst ? FragmentFlags.firstHeaderLength : 1)
            let end = Swift.min(message.count, offset + room)
            var flags: FragmentFlags = []
            if isFirst { flags.insert(.first) }
            if end == message.count { flags.insert(.last) }
            var writer = ByteWriter(reservingCapacity: maxPlaintextLength)
            writer.write(flags.rawValue)
            if isFirst { writer.write(UInt32(message.count)) }
            writer.write(bytes: message[offset..<end])
            offset = end
            return writer.bytes
        }
    }
}
