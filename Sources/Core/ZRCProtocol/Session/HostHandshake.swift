/// The host's side of connection set-up (Noise responder), sans-IO, in two steps.
///
/// `HostHandshake` reads the controller's preamble and first handshake record; the host then
/// decides which key material applies (the invite's psk for pairing) and continues with
/// `HostHandshakeResponder`. Between the two, nothing has been authenticated and nothing is
/// acted upon.
public struct HostHandshake: Sendable {
    /// The host's preamble, to send as soon as a connection is accepted.
    public static let preamble: [UInt8] = Preamble.encode()

    private var reader = PeerRecordReader(localRole: .host)
    private var initiation: HandshakeInitiation?

    public init() {}

    /// Bytes the host holds for this connection; bounded by one record.
    public var bufferedByteCount: Int { reader.decoder.bufferedByteCount }

    /// Whether the peer has shown it speaks ZRC: a valid preamble and the valid header of its
    /// first record arrived (the decoder rejects a bad header as soon as its bytes are in). Only
    /// then does a connection deserve a handshake slot.
    public var isIdentified: Bool {
        initiation != nil || reader.preambleComplete && reader.decoder.bufferedByteCount >= Record.headerLength
    }

    /// Feeds received bytes; returns the controller's initiation once it has arrived.
    public mutating func receive(_ bytes: some Collection<UInt8>) throws(SessionError) -> HandshakeInitiation? {
        if let initiation { return initiation }
        let records = try reader.feed(bytes)
        guard let first = records.first else { return nil }
        guard records.count == 1 else {
            throw SessionError(.protocolViolation, "the controller sent more records before the handshake completed")
        }
        guard first.type == .handshake else {
            throw SessionError(.protocolViolation, "the controller's first record is not a handshake record")
        }
        let decoded = try HandshakeInitiation.decode(first.body)
        initiation = decoded
        return decoded
    }

    /// Starts the Noise responder for the received initiation. `psk` is required for pairing.
    public func respond(localStatic: NoiseKeyPair, psk: SecretBytes?, crypto: any NoiseCrypto) throws(SessionError) -> HostHandshakeResponder {
        guard let initiation, let controllerPreamble = reader.peerPreamble else { preconditionFailure("respond before the initiation arrived") }
        let prologue = initiation.prologue(controllerPreamble: controllerPreamble, hostPreamble: Self.preamble)
        return try HostHandshakeResponder(initiation: initiation, prologue: prologue, decoder: reader.decoder, localStatic: localStatic,
                                          psk: psk, crypto: crypto)
    }

    /// A reject record telling the controller why, to send before closing.
    public static func rejection(_ reason: HandshakeRejection) -> [UInt8] {
        Record(type: .reject, body: reason.body).encode()
    }
}

/// The Noise responder after the host chose its key material.
public struct HostHandshakeResponder: ~Copyable, Sendable {
    public let initiation: HandshakeInitiation
    /// The controller's static key, authenticated by message 1 (it proved possession through `ss`).
    public let controllerKey: NoisePublicKey
    public let payload: HandshakeInitPayload
    private var noise: HandshakeState
    private let decoder: RecordDecoder
    private var accepted = false

    init(initiation: HandshakeInitiation, prologue: [UInt8], decoder: RecordDecoder, localStatic: NoiseKeyPair, psk: SecretBytes?,
         crypto: any NoiseCrypto) throws(SessionError) {
        // Everything that can throw runs on locals first: a noncopyable field cannot be left
        // half-initialized on a throwing path.
        var state = try Self.startNoise(initiation: initiation, prologue: prologue, localStatic: localStatic, psk: psk, crypto: crypto)
        let payload = try Self.readInitiation(initiation, into: &state)
        guard payload.mode == initiation.mode else {
            throw SessionError(.rejected(.malformed), "handshake payload mode differs from the record's mode")
        }
        if case .pair(let id) = payload.purpose, id != initiation.inviteID {
            throw SessionError(.rejected(.malformed), "handshake payload names another invite than the record")
        }
        guard let key = state.remoteStaticKey else {
            preconditionFailure("IK message 1 always carries the initiator's static key")
        }
        self.initiation = initiation
        self.decoder = decoder
        self.payload = payload
        controllerKey = key
        noise = state
    }

    private static func startNoise(initiation: HandshakeInitiation, prologue: [UInt8], localStatic: NoiseKeyPair, psk: SecretBytes?,
                                   crypto: any NoiseCrypto) throws(SessionError) -> HandshakeState {
        do {
            return try HandshakeState(
                protocolName: HandshakeInitiation.protocolName(for: initiation.mode), role: .responder,
                prologue: prologue, localStatic: localStatic, psks: psk.map { [$0] } ?? [], crypto: crypto)
        } catch {
            throw SessionError.from(error, during: "starting the handshake")
        }
    }

    private static func readInitiation(_ initiation: HandshakeInitiation,
                                       into noise: inout HandshakeState) throws(SessionError) -> HandshakeInitPayload {
        let payloadBytes: [UInt8]
        do {
            payloadBytes = try noise.readMessage(initiation.noiseMessage)
        } catch {
            // Message 1 is encrypted to our static key: if it does not open, the controller used
            // a different host key (or the bytes were tampered with).
            throw SessionError(.rejected(.hostKeyMismatch), "handshake message 1 did not decrypt with this host's key: \(error.message)")
        }
        do {
            return try HandshakeInitPayload.decode(payloadBytes)
        } catch {
            throw SessionError(.rejected(.malformed), "handshake payload is malformed: \(error.message)")
        }
    }

    /// Writes handshake message 2 carrying `response`; returns the record to send.
    public mutating func accept(_ response: HandshakeResponsePayload) throws(SessionError) -> [UInt8] {
        precondition(!accepted, "accept called twice")
        accepted = true
        do {
            let message = try noise.writeMessage(payload: response.encode())
            return Record(type: .handshake, body: message).encode()
        } catch {
            throw SessionError.from(error, during: "answering the handshake")
        }
    }

    public consuming func establish() throws(SessionError) -> SecureChannel {
        do {
            // Controllers never send frames: their messages are capped far below the default.
            return SecureChannel(transport: try noise.split(), decoder: decoder, pending: [],
                                 maxMessageLength: WireLimits.maxControllerMessageLength)
        } catch {
            throw SessionError.from(error, during: "finishing the handshake")
        }
    }
}
