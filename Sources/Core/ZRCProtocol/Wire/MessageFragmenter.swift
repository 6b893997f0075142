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

    /// Where each plaintext's chunk lies in a `length`-byte message, with its flags: what a sender
    /// that writes the plaintexts itself (into the buffer it seals in place) needs.
    public func pieces(ofMessageLength length: Int) -> Pieces {
        precondition(length > 0, "an application message is never empty")
        precondition(length <= Int(UInt32.max), "a message must fit the u32 length field")
        return Pieces(length: length, maxPlaintextLength: maxPlaintextLength)
    }

    /// One plaintext: flags byte, the u32 total when FIRST, then `message[chunk]`.
    public struct Piece: Sendable, Equatable {
        public var flags: UInt8
        public var isFirst: Bool
        public var chunk: Range<Int>
        /// Flags, the FIRST header's length field and the chunk.
        public var plaintextLength: Int { (isFirst ? FragmentFlags.firstHeaderLength : 1) + chunk.count }
    }

    public struct Pieces: Sequence, IteratorProtocol, Sendable {
        let length: Int
        let maxPlaintextLength: Int
        var offset = 0

        public mutating func next() -> Piece? {
            guard offset < length else { return nil }
            let isFirst = offset == 0
            let room = maxPlaintextLength - (isFirst ? FragmentFlags.firstHeaderLength : 1)
            let end = Swift.min(length, offset + room)
            var flags: FragmentFlags = []
            if isFirst { flags.insert(.first) }
            if end == length { flags.insert(.last) }
            defer { offset = end }
            return Piece(flags: flags.rawValue, isFirst: isFirst, chunk: offset..<end)
        }
    }

    /// `message`'s plaintexts in order, made one at a time.
    public struct Plaintexts: Sequence, IteratorProtocol, Sendable {
        let message: [UInt8]
        var pieces: Pieces

        init(message: [UInt8], maxPlaintextLength: Int) {
            self.message = message
            pieces = Pieces(length: message.count, maxPlaintextLength: maxPlaintextLength)
        }

        public mutating func next() -> [UInt8]? {
            guard let piece = pieces.next() else { return nil }
            var writer = ByteWriter(reservingCapacity: piece.plaintextLength)
            writer.write(piece.flags)
            if piece.isFirst { writer.write(UInt32(message.count)) }
            writer.write(bytes: message[piece.chunk])
            return writer.bytes
        }
    }
}
