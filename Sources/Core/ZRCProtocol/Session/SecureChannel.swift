/// An established connection's protocol state after the handshake, sans-IO: application messages
/// in, encrypted records out, and the reverse.
///
/// Each direction has its own key and nonce sequence (Noise Split); a record that does not
/// decrypt under the next expected nonce — tampered, replayed, reordered, truncated — is an
/// error, and the caller must close the connection.
public struct SecureChannel: ~Copyable, Sendable {
    private var transport: NoiseTransport
    private var decoder: RecordDecoder
    private var reassembler: MessageReassembler
    private let fragmenter = MessageFragmenter()
    private var pending: [Record]
    /// Transport records that decrypted and authenticated so far: what "heard from the peer" means.
    public private(set) var authenticatedRecords: UInt64 = 0

    init(transport: consuming NoiseTransport, decoder: RecordDecoder, pending: [Record],
         maxMessageLength: Int = WireLimits.defaultMaxMessageLength) {
        self.transport = transport
        self.decoder = decoder
        self.pending = pending
        reassembler = MessageReassembler(maxMessageLength: maxMessageLength)
    }

    /// Whether part of a fragmented message has arrived and the rest has not.
    public var isReceivingMessage: Bool { reassembler.isReceivingMessage }

    /// The handshake transcript hash; equal on both sides (usable for channel binding).
    public var handshakeHash: [UInt8] { transport.handshakeHash }

    /// Encrypts one message into one or more transport records, ready to write in order.
    public mutating func seal(_ message: ZRCMessage) throws(SessionError) -> [UInt8] {
        try seal(encoded: message.encode())
    }

    /// The bytes sealing an encoded message of `length` bytes puts on the wire: every record's
    /// header, plaintext (flags, the FIRST length, the chunk) and tag.
    public func sealedLength(ofMessageLength length: Int) -> Int {
        fragmenter.plaintextBytes(ofMessageLength: length)
            + fragmenter.plaintextCount(ofMessageLength: length) * (Record.headerLength + NoiseTransport.overhead)
    }

    /// Seals an encoded message into `output` (at least `sealedLength(ofMessageLength:)` bytes,
    /// owned by the caller — the socket's buffer) and returns the bytes written. Each record is
    /// laid out where it will be written from — header, flags, the message's chunk — and encrypted
    /// there in place: the message is copied once, into `output`, and nothing else is allocated.
    /// The message is `head` followed by `tail` (`ZRCMessage.encodedParts`), never joined.
    public mutating func seal(encoded head: [UInt8], tail: [UInt8] = [], into output: UnsafeMutableRawBufferPointer) throws(SessionError) -> Int {
        let length = head.count + tail.count
        let total = sealedLength(ofMessageLength: length)
        precondition(output.count >= total, "the output must hold the sealed message (\(total) bytes)")
        var offset = 0
        func put(_ value: some FixedWidthInteger) {
            withUnsafeBytes(of: value.bigEndian) { output.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            offset += MemoryLayout.size(ofValue: value)
        }
        /// Copies `part[range]` (clamped to the part) to `output` at `offset`.
        func copy(_ part: [UInt8], _ range: Range<Int>) {
            let range = range.clamped(to: 0..<part.count)
            guard !range.isEmpty else { return }
            part.withUnsafeBytes { bytes in
                UnsafeMutableRawBufferPointer(rebasing: output[offset..<(offset + range.count)])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[range]))
            }
            offset += range.count
        }
        for piece in fragmenter.pieces(ofMessageLength: length) {
            let body = piece.plaintextLength + NoiseTransport.overhead
            put(Record.RecordType.transport.rawValue)
            put(UInt32(body))
            let plaintextStart = offset
            put(piece.flags)
            if piece.isFirst { put(UInt32(length)) }
            copy(head, piece.chunk)
            copy(tail, max(0, piece.chunk.lowerBound - head.count)..<max(0, piece.chunk.upperBound - head.count))
            offset += NoiseTransport.overhead
            do {
                try transport.encryptInPlace(UnsafeMutableRawBufferPointer(rebasing: output[plaintextStart..<offset]))
            } catch {
                throw SessionError.from(error, during: "encrypting")
            }
        }
        return offset
    }

    /// Seals bytes as one application message without checking them: for tests that play a
    /// hostile peer (a valid message is always sealed through `seal(_:)`).
    package mutating func seal(encoded message: [UInt8]) throws(SessionError) -> [UInt8] {
        let total = sealedLength(ofMessageLength: message.count)
        var failure: SessionError?
        let sealed = [UInt8](unsafeUninitializedCapacity: total) { buffer, count in
            do throws(SessionError) {
                count = try seal(encoded: message, into: UnsafeMutableRawBufferPointer(buffer))
            } catch {
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }
        return sealed
    }

    /// Seals one transport plaintext (fragment flags included) as it is: for tests that play a
    /// peer whose fragments break the rules.
    package mutating func seal(fragment plaintext: [UInt8]) throws(SessionError) -> [UInt8] {
        var writer = ByteWriter()
        do {
            Record(type: .transport, body: try transport.encrypt(plaintext)).encode(into: &writer)
        } catch {
            throw SessionError.from(error, during: "encrypting")
        }
        return writer.bytes
    }

    /// Decrypts every complete record in `bytes` (plus anything received with the handshake) and
    /// returns the complete messages, in order.
    public mutating func open(_ bytes: some Collection<UInt8>) throws(SessionError) -> [ZRCMessage] {
        var records = pending
        pending = []
        do {
            records += try decoder.feed(bytes)
        } catch {
            throw SessionError.from(error)
        }
        var messages: [ZRCMessage] = []
        for index in records.indices {
            guard records[index].type == .transport else {
                throw SessionError(.protocolViolation, "the peer sent a \(records[index].type) record after the handshake")
            }
            // Taken out of the array so it is the body's only reference and decrypts in place.
            var plaintext: [UInt8] = []
            swap(&plaintext, &records[index].body)
            var failure: NoiseError?
            plaintext.withUnsafeMutableBytes { bytes in
                do throws(NoiseError) { try transport.decryptInPlace(bytes) } catch { failure = error }
            }
            if let failure {
                if failure.kind == .nonceExhausted { throw SessionError.from(failure, during: "decrypting") }
                throw SessionError(
                    .recordRejected,
                    "a record failed authentication (tampered, replayed, reordered or corrupted); the connection is closed")
            }
            plaintext.removeLast(NoiseTransport.overhead)
            authenticatedRecords &+= 1
            do {
                if let complete = try reassembler.add(plaintext) {
                    messages.append(try ZRCMessage.decode(complete))
                }
            } catch {
                throw SessionError.from(error)
            }
        }
        return messages
    }
}
