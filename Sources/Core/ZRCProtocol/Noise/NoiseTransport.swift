/// The encrypted channel after a handshake: one cipher per direction (Noise Split), each with its
/// own key and strictly increasing nonce.
///
/// The receiver's nonce is implicit — the number of records accepted so far — so a replayed,
/// reordered or dropped record fails authentication; over a reliable stream any decrypt error
/// means "close the connection". `~Copyable` because a copy would encrypt two records under the
/// same nonce.
///
/// Rekey policy: each direction calls Noise `Rekey()` after every `rekeyInterval` records. Both
/// peers count the same records, so they stay in step without any signalling.
public struct NoiseTransport: ~Copyable, Sendable {
    /// About a million records between rekeys: bounds how much traffic one key protects while
    /// costing one extra AEAD call per million records.
    public static let defaultRekeyInterval: UInt64 = 1 << 20
    /// The Noise limit for one transport message (ciphertext including its tag).
    public static let maxMessageLength = 65535
    /// Bytes added to each record: the Poly1305 tag.
    public static let overhead = CipherState.tagLength
    /// The largest plaintext one record can carry.
    public static let maxPlaintextLength = maxMessageLength - overhead

    public let handshakeHash: [UInt8]
    /// The peer's authenticated static key, when the pattern has one.
    public let remoteStaticKey: NoisePublicKey?
    public let rekeyInterval: UInt64
    /// Nil for the direction a one-way pattern does not allow.
    private var sender: CipherState?
    private var receiver: CipherState?

    init(sender: CipherState?, receiver: CipherState?, handshakeHash: [UInt8], remoteStaticKey: NoisePublicKey?,
         rekeyInterval: UInt64) {
        // A configuration constant of our own code, never peer input.
        precondition(rekeyInterval >= 1, "rekeyInterval must be at least 1")
        self.sender = sender
        self.receiver = receiver
        self.handshakeHash = handshakeHash
        self.remoteStaticKey = remoteStaticKey
        self.rekeyInterval = rekeyInterval
    }

    /// Records sent / accepted so far (the next nonce of each direction).
    public var sentCount: UInt64 { sender?.nonce ?? 0 }
    public var receivedCount: UInt64 { receiver?.nonce ?? 0 }

    /// Encrypts one record. Throws `.nonceExhausted` after 2⁶⁴−1 records (every later call throws
    /// too, so a nonce is never reused) and `.messageTooLarge` above `maxPlaintextLength`.
    public mutating func encrypt(_ plaintext: [UInt8], associatedData: [UInt8] = []) throws(NoiseError) -> [UInt8] {
        guard var cipher = sender else {
            throw NoiseError(.oneWayPattern, "a one-way Noise pattern lets only the initiator send")
        }
        guard plaintext.count <= Self.maxPlaintextLength else {
            throw NoiseError(.messageTooLarge, "a record of \(plaintext.count) bytes exceeds the Noise limit of "
                                 + "\(Self.maxPlaintextLength) plaintext bytes; split it")
        }
        let ciphertext = try cipher.encrypt(associatedData: associatedData, plaintext: plaintext)
        if cipher.nonce % rekeyInterval == 0 { cipher.rekey() }
        sender = cipher
        return ciphertext
    }

    /// `encrypt` in place: `buffer` holds the plaintext followed by 16 bytes for the tag
    /// (`NoiseCrypto.encryptInPlace`), so a record is sealed where it will be written from.
    public mutating func encryptInPlace(_ buffer: UnsafeMutableRawBufferPointer, associatedData: [UInt8] = []) throws(NoiseError) {
        guard var cipher = sender else {
            throw NoiseError(.oneWayPattern, "a one-way Noise pattern lets only the initiator send")
        }
        let plaintextLength = buffer.count - CipherState.tagLength
        guard plaintextLength >= 0, plaintextLength <= Self.maxPlaintextLength else {
            throw NoiseError(.messageTooLarge, "a record of \(plaintextLength) bytes is outside the Noise limit of "
                                 + "\(Self.maxPlaintextLength) plaintext bytes; split it")
        }
        try cipher.encryptInPlace(associatedData: associatedData, buffer: buffer)
        if cipher.nonce % rekeyInterval == 0 { cipher.rekey() }
        sender = cipher
    }

    /// `decrypt` in place: on success the buffer's first `count - 16` bytes are the plaintext.
    public mutating func decryptInPlace(_ buffer: UnsafeMutableRawBufferPointer, associatedData: [UInt8] = []) throws(NoiseError) {
        guard var cipher = receiver else {
            throw NoiseError(.oneWayPattern, "a one-way Noise pattern lets the responder only receive")
        }
        guard buffer.count <= Self.maxMessageLength else {
            throw NoiseError(.messageTooLarge, "a record of \(buffer.count) bytes exceeds the Noise limit of "
                                 + "\(Self.maxMessageLength)")
        }
        do throws(NoiseError) {
            try cipher.decryptInPlace(associatedData: associatedData, buffer: buffer)
        } catch where error.kind == .decryptFailed {
            throw NoiseError(.decryptFailed, "record \(cipher.nonce) failed authentication: it was tampered with, "
                                 + "replayed, reordered or not sent by this peer; close the connection")
        }
        if cipher.nonce % rekeyInterval == 0 { cipher.rekey() }
        receiver = cipher
    }

    /// Decrypts the next record. A failure leaves the expected nonce unchanged; the caller
    /// should treat it as fatal for the connection.
    public mutating func decrypt(_ ciphertext: [UInt8], associatedData: [UInt8] = []) throws(NoiseError) -> [UInt8] {
        guard var cipher = receiver else {
            throw NoiseError(.oneWayPattern, "a one-way Noise pattern lets the responder only receive")
        }
        guard ciphertext.count <= Self.maxMessageLength else {
            throw NoiseError(.messageTooLarge, "a record of \(ciphertext.count) bytes exceeds the Noise limit of "
                                 + "\(Self.maxMessageLength)")
        }
        let plaintext: [UInt8]
        do throws(NoiseError) {
            plaintext = try cipher.decrypt(associatedData: associatedData, ciphertext: ciphertext)
        } catch where error.kind == .decryptFailed {
            throw NoiseError(.decryptFailed, "record \(cipher.nonce) failed authentication: it was tampered with, "
                                 + "replayed, reordered or not sent by this peer; close the connection")
        }
        if cipher.nonce % rekeyInterval == 0 { cipher.rekey() }
        receiver = cipher
        return plaintext
    }

    /// Test hook: jumps both nonces, to reach the end of the nonce space without 2⁶⁴ records.
    @_spi(Testing)
    public mutating func setNonces(sender senderNonce: UInt64?, receiver receiverNonce: UInt64?) {
        if let senderNonce { sender?.setNonce(senderNonce) }
        if let receiverNonce { receiver?.setNonce(receiverNonce) }
    }
}
