/// Handshake record 1's body: the mode byte, for pairing the invite ID, then Noise message 1.
///
/// Mode and invite ID travel in the clear because the host needs them before it can start the
/// right Noise handshake (the pattern differs, and the pairing psk depends on the invite). Both are
/// bound into the prologue (`HandshakePrologue`), so tampering with either fails the handshake. An
/// invite ID reveals nothing: it is random and single-use.
public struct HandshakeInitiation: Sendable, Equatable {
    public var mode: HandshakeMode
    public var inviteID: InviteID?
    public var noiseMessage: [UInt8]

    public init(mode: HandshakeMode, inviteID: InviteID?, noiseMessage: [UInt8]) {
        self.mode = mode
        self.inviteID = inviteID
        self.noiseMessage = noiseMessage
    }

    public func prologue(controllerPreamble: [UInt8], hostPreamble: [UInt8]) -> [UInt8] {
        HandshakePrologue.bytes(mode: mode, controllerPreamble: controllerPreamble, hostPreamble: hostPreamble, inviteID: inviteID)
    }

    public func encode() -> [UInt8] {
        [mode.rawValue] + (inviteID?.bytes ?? []) + noiseMessage
    }

    public static func decode(_ body: [UInt8]) throws(SessionError) -> HandshakeInitiation {
        guard let first = body.first, let mode = HandshakeMode(rawValue: first) else {
            throw SessionError(.protocolViolation, "the first handshake record has an unknown mode")
        }
        var rest = body.dropFirst()
        var inviteID: InviteID?
        if mode == .pair {
            guard rest.count > InviteID.length else {
                throw SessionError(.protocolViolation, "the pairing handshake record is too short")
            }
            do {
                inviteID = try InviteID(bytes: Array(rest.prefix(InviteID.length)))
            } catch {
                throw SessionError.from(error)
            }
            rest = rest.dropFirst(InviteID.length)
        }
        guard !rest.isEmpty else { throw SessionError(.protocolViolation, "the handshake record carries no Noise message") }
        return HandshakeInitiation(mode: mode, inviteID: inviteID, noiseMessage: Array(rest))
    }

    /// The Noise protocol used for each mode.
    public static func protocolName(for mode: HandshakeMode) -> String {
        switch mode {
        case .pair: "Noise_IKpsk2_25519_ChaChaPoly_BLAKE2b"
        case .session: "Noise_IK_25519_ChaChaPoly_BLAKE2b"
        }
    }
}
