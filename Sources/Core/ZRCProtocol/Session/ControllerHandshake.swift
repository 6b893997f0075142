/// The controller's side of connection set-up (Noise initiator), sans-IO.
///
/// Both preambles are part of the Noise prologue (`HandshakePrologue`), so message 1 can only be
/// built once the host's preamble is known: send `Preamble.encode()` as soon as the TCP connection
/// is up, read until the host's preamble has arrived, then build this with those bytes, send
/// `initiationRecord`, and feed everything the host sent (its preamble included) to `receive`;
/// once it returns the host's response payload, call `establish` for the channel. `firstFlight`
/// is both at once, for a peer whose preamble is known in advance (tests, replays).
public struct ControllerHandshake: ~Copyable, Sendable {
    public enum Purpose: Sendable {
        /// First contact: the invite supplies the host key and the psk.
        case pair(inviteID: InviteID, secret: SecretBytes)
        /// A session with a paired host.
        case session(requested: SessionFlags)
    }

    /// Handshake record 1, to send once the host's preamble has arrived.
    public let initiationRecord: [UInt8]
    /// This side's preamble followed by `initiationRecord`.
    public var firstFlight: [UInt8] { Preamble.encode() + initiationRecord }
    /// The host preamble this handshake was built for; the one received must be the same.
    private let hostPreamble: [UInt8]
    private var noise: HandshakeState
    private var reader = PeerRecordReader(localRole: .controller)
    private var pending: [Record] = []
    private var response: HandshakeResponsePayload?

    public init(
        purpose: Purpose, localStatic: NoiseKeyPair, hostKey: NoisePublicKey, timestampMicros: UInt64,
        agent: String, crypto: any NoiseCrypto, hostPreamble: [UInt8] = HostHandshake.preamble
    ) throws(SessionError) {
        let mode: HandshakeMode
        let inviteID: InviteID?
        let psks: [SecretBytes]
        let payloadPurpose: HandshakeInitPayload.Purpose
        switch purpose {
        case .pair(let id, let secret):
            mode = .pair
            inviteID = id
            psks = [KeyDerivations.pairingPSK(inviteID: id, secret: secret, crypto: crypto)]
            payloadPurpose = .pair(inviteID: id)
        case .session(let requested):
            mode = .session
            inviteID = nil
            psks = []
            payloadPurpose = .session(requested: requested)
        }
        // Throwing work on a local first: a noncopyable field cannot be half-initialized on a
        // throwing path.
        let prologue = HandshakePrologue.bytes(mode: mode, controllerPreamble: Preamble.encode(), hostPreamble: hostPreamble,
                                               inviteID: inviteID)
        var state = try Self.startNoise(mode: mode, prologue: prologue, localStatic: localStatic, hostKey: hostKey, psks: psks,
                                        crypto: crypto)
        let payload = HandshakeInitPayload(purpose: payloadPurpose, timestampMicros: timestampMicros, agent: agent)
        let message: [UInt8]
        do {
            message = try state.writeMessage(payload: payload.encode())
        } catch {
            throw SessionError.from(error, during: "starting the handshake")
        }
        let initiation = HandshakeInitiation(mode: mode, inviteID: inviteID, noiseMessage: message)
        initiationRecord = Record(type: .handshake, body: initiation.encode()).encode()
        self.hostPreamble = hostPreamble
        noise = state
    }

    private static func startNoise(mode: HandshakeMode, prologue: [UInt8], localStatic: NoiseKeyPair, hostKey: NoisePublicKey,
                                   psks: [SecretBytes], crypto: any NoiseCrypto) throws(SessionError) -> HandshakeState {
        do {
            return try HandshakeState(
                protocolName: HandshakeInitiation.protocolName(for: mode), role: .initiator,
                prologue: prologue,
                localStatic: localStatic, remoteStatic: hostKey, psks: psks, crypto: crypto)
        } catch {
            throw SessionError.from(error, during: "starting the handshake")
        }
    }

    /// Feeds received bytes. Returns the host's response once the handshake is complete, nil while
    /// more bytes are needed; throws when the host rejected us or the handshake failed.
    public mutating func receive(_ bytes: some Collection<UInt8>) throws(SessionError) -> HandshakeResponsePayload? {
        if let response { return response }
        let records = try reader.feed(bytes)
        if let received = reader.peerPreamble, received != hostPreamble {
            throw SessionError(.protocolViolation, "the host's preamble differs from the one this handshake was built for")
        }
        for (index, record) in records.enumerated() {
            switch record.type {
            case .reject:
                guard let reason = HandshakeRejection.decode(record.body) else {
                    throw SessionError(.protocolViolation, "the host refused the handshake without a readable reason")
                }
                throw SessionError(.rejected(reason), reason.explanation)
            case .transport:
                throw SessionError(.protocolViolation, "the host sent encrypted data before completing the handshake")
            case .handshake:
                let payloadBytes: [UInt8]
                do {
                    payloadBytes = try noise.readMessage(record.body)
                } catch {
                    throw SessionError(
                        .handshakeFailed,
                        "the host's handshake reply did not authenticate (\(error.message)); the connection may have been tampered with")
                }
                do {
                    response = try HandshakeResponsePayload.decode(payloadBytes)
                } catch {
                    throw SessionError.from(error)
                }
                pending = Array(records[(index + 1)...])
                return response
            }
        }
        return nil
    }

    /// The secure channel, once `receive` returned the response.
    public consuming func establish() throws(SessionError) -> SecureChannel {
        do {
            let transport = try noise.split()
            return SecureChannel(transport: transport, decoder: reader.decoder, pending: pending)
        } catch {
            throw SessionError.from(error, during: "finishing the handshake")
        }
    }
}
