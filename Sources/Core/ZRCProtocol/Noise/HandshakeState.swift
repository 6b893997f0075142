/// A Noise handshake (spec §5.3) as a sans-IO state machine: bytes in, bytes out, no I/O.
///
/// It is `~Copyable` on purpose: a copy would hold the same ephemeral key and transcript, and
/// could be used to retry a failed message with altered input or to run two handshakes from one
/// ephemeral key. `split` consumes it, so a finished handshake cannot be used again either.
///
/// Errors: everything caused by the peer's bytes throws, and a failed `readMessage` marks the
/// handshake failed for good. Calling out of turn also throws (`.wrongTurn`, `.handshakeComplete`).
public struct HandshakeState: ~Copyable, Sendable {
    /// What the handshake expects next.
    public enum Step: Sendable, Hashable {
        case writeMessage
        case readMessage
        /// Done: call `split` to get the transport.
        case complete
        /// A step failed; discard the handshake (and the connection).
        case failed
    }

    /// The Noise limit for any single message, handshake or transport.
    public static let maxMessageLength = 65535

    public let protocolName: NoiseProtocolName
    public let role: NoiseRole
    let crypto: any NoiseCrypto
    var symmetric: SymmetricState
    var keys: Keys
    var phase: Phase

    /// Only the data valid in each phase: the split ciphers exist only once complete.
    enum Phase: Sendable {
        case inProgress(nextMessage: Int)
        case complete(initiatorToResponder: CipherState, responderToInitiator: CipherState)
        case failed
    }

    /// The keys the tokens operate on; filled in as the handshake learns them.
    struct Keys: Sendable {
        var localStatic: NoiseKeyPair?
        var localEphemeral: NoiseKeyPair?
        /// An ephemeral supplied by a test to reproduce vectors; used by the first `e` token.
        var injectedEphemeral: NoiseKeyPair?
        var remoteStatic: NoisePublicKey?
        var remoteEphemeral: NoisePublicKey?
        /// Pre-shared keys in the order the pattern's psk tokens consume them.
        var psks: [SecretBytes]
        var nextPSK = 0
    }

    /// Starts a handshake.
    ///
    /// - Parameters:
    ///   - protocolName: e.g. `Noise_IKpsk2_25519_ChaChaPoly_BLAKE2b`; both sides must agree.
    ///   - prologue: data both sides already agree on (e.g. a version string); a mismatch fails
    ///     the handshake.
    ///   - localStatic: our long-term key pair, required when the pattern sends or pre-shares it.
    ///   - remoteStatic: the peer's key known in advance (a pinned host key); required exactly when
    ///     the pattern pre-shares it (`<- s` for the initiator, `-> s` for the responder).
    ///   - psks: one 32-byte key per psk modifier, in token order.
    public init(
        protocolName: String, role: NoiseRole, prologue: [UInt8] = [], localStatic: NoiseKeyPair? = nil,
        remoteStatic: NoisePublicKey? = nil, psks: [SecretBytes] = [], crypto: any NoiseCrypto
    ) throws(NoiseError) {
        try self.init(protocolName: protocolName, role: role, prologue: prologue, localStatic: localStatic,
                      remoteStatic: remoteStatic, psks: psks, crypto: crypto, localEphemeral: nil)
    }

    /// As above, with a fixed ephemeral key pair. Only for reproducing test vectors: reusing an
    /// ephemeral key destroys forward secrecy, hence the SPI.
    @_spi(Testing)
    public init(
        protocolName: String, role: NoiseRole, prologue: [UInt8] = [], localStatic: NoiseKeyPair? = nil,
        remoteStatic: NoisePublicKey? = nil, psks: [SecretBytes] = [], crypto: any NoiseCrypto,
        localEphemeral: NoiseKeyPair?
    ) throws(NoiseError) {
        let name = try NoiseProtocolName(protocolName)
        try name.check(against: crypto)
        let pattern = name.pattern
        try Self.checkKeys(pattern: pattern, role: role, localStatic: localStatic, remoteStatic: remoteStatic, psks: psks)
        if let remoteStatic { try crypto.validatePublicKey(remoteStatic) }

        self.protocolName = name
        self.role = role
        self.crypto = crypto
        keys = Keys(localStatic: localStatic, injectedEphemeral: localEphemeral, remoteStatic: remoteStatic, psks: psks)
        phase = .inProgress(nextMessage: 0)
        symmetric = SymmetricState(protocolName: protocolName, crypto: crypto)
        symmetric.mixHash(prologue)
        // Pre-message keys enter the transcript initiator first (spec §5.3, Initialize()).
        for (owner, tokens) in [(NoiseRole.initiator, pattern.initiatorPreMessage), (.responder, pattern.responderPreMessage)] {
            for token in tokens {
                // checkKeys guarantees the key exists; the table only pre-shares `s`.
                precondition(token == .s, "pre-messages other than s are not supported")
                let key = owner == role ? localStatic?.publicKey : remoteStatic
                symmetric.mixHash(key?.bytes ?? [])
            }
        }
    }

    public var nextStep: Step {
        switch phase {
        case .inProgress(let index): NoiseRole.writer(ofMessage: index) == role ? .writeMessage : .readMessage
        case .complete: .complete
        case .failed: .failed
        }
    }

    public var isComplete: Bool { nextStep == .complete }

    /// The transcript hash `h`. Once complete, both sides hold the same value, which can bind a
    /// higher-level exchange to this handshake (channel binding).
    public var handshakeHash: [UInt8] { symmetric.handshakeHash }

    /// The peer's static key: pre-shared, or learned from the handshake. Only authenticated once
    /// `isComplete`; decide whether to trust it before acting on anything the peer sent.
    public var remoteStaticKey: NoisePublicKey? { keys.remoteStatic }

    /// Finishes into a transport (Noise Split): one key and nonce sequence per direction.
    /// `rekeyInterval` must be at least 1 and the same on both sides.
    public consuming func split(rekeyInterval: UInt64 = NoiseTransport.defaultRekeyInterval) throws(NoiseError) -> NoiseTransport {
        switch phase {
        case .inProgress:
            throw NoiseError(.handshakeIncomplete, "the handshake has messages left; finish it before splitting")
        case .failed:
            throw NoiseError(.handshakeFailed, "the handshake failed earlier and has no keys to split")
        case .complete(let initiatorToResponder, let responderToInitiator):
            // One-way patterns: the responder never sends (spec §7.4), so it gets no sender.
            let oneWay = protocolName.pattern.isOneWay
            let sender = role == .initiator ? initiatorToResponder : (oneWay ? nil : responderToInitiator)
            let receiver = role == .initiator ? (oneWay ? nil : responderToInitiator) : initiatorToResponder
            return NoiseTransport(sender: sender, receiver: receiver, handshakeHash: symmetric.handshakeHash,
                                  remoteStaticKey: keys.remoteStatic, rekeyInterval: rekeyInterval)
        }
    }

    /// Refuses configurations that cannot work, or that would look like they check something
    /// they do not (a remote key the pattern never uses, a psk in a pattern without psk tokens).
    private static func checkKeys(
        pattern: HandshakePattern, role: NoiseRole, localStatic: NoiseKeyPair?, remoteStatic: NoisePublicKey?,
        psks: [SecretBytes]
    ) throws(NoiseError) {
        let peer: NoiseRole = role == .initiator ? .responder : .initiator
        if localStatic == nil, pattern.tokens(writtenBy: role).contains(.s) {
            throw NoiseError(.missingKey, "the \(pattern.name) pattern needs our static key pair as \(role)")
        }
        let peerPreShares = (peer == .initiator ? pattern.initiatorPreMessage : pattern.responderPreMessage).contains(.s)
        if peerPreShares, remoteStatic == nil {
            throw NoiseError(.missingKey, "the \(pattern.name) pattern needs the peer's static public key in advance")
        }
        if !peerPreShares, remoteStatic != nil {
            throw NoiseError(.unexpectedKey, "the \(pattern.name) pattern does not use a pre-shared remote static key "
                                 + "as \(role); compare remoteStaticKey after the handshake instead")
        }
        if psks.count < pattern.pskCount {
            throw NoiseError(.missingKey, "the \(pattern.name) pattern needs \(pattern.pskCount) psk(s), got \(psks.count)")
        }
        if psks.count > pattern.pskCount {
            throw NoiseError(.unexpectedKey, "the \(pattern.name) pattern uses \(pattern.pskCount) psk(s), got \(psks.count)")
        }
        if let bad = psks.first(where: { $0.count != 32 }) {
            throw NoiseError(.invalidKey, "a psk must be 32 bytes, got \(bad.count)")
        }
    }
}
