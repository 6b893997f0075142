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

    /// Seals bytes as one application message without checking them: for tests that play a
    /// hostile peer (a valid message is always sealed through `seal(_:)`).
    package mutating func seal(encoded message: [UInt8]) throws(SessionError) -> [UInt8] {
        var writer = ByteWriter()
        for fragment in fragmenter.fragments(of: message) {
            do {
                let ciphertext = try transport.encrypt(fragment)
                Record(type: .transport, body: ciphertext).encode(into: &writer)
            } catch {
                throw SessionError.from(error, during: "encrypting")
            }
        }
        return writer.bytes
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
        for record in records {
            guard record.type == .transport else {
                throw SessionError(.protocolViolation, "the peer sent a \(record.type) record after the handshake")
            }
            let plaintext: [UInt8]
            do {
                plaintext = try transport.decrypt(record.body)
                authenticatedRecords &+= 1
            } catch {
                if error.kind == .nonceExhausted { throw SessionError.from(error, during: "decrypting") }
                throw SessionError(
                    .recordRejected,
                    "a record failed authentication (tampered, replayed, reordered or corrupted); the connection is closed")
            }
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
