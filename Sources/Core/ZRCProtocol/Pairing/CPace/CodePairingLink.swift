/// The byte stream of the LAN meeting point, sans-IO, for both ends.
///
/// Frames are a u16 big-endian length and that many bytes (at most `maximumFrameBody`). The
/// controller opens with Noise NN message 1 (`-> e`), the host answers with message 2
/// (`<- e, ee`), and every later frame is one `PairingMeetingMessage` sealed by the split
/// transport. NN authenticates nobody — CPace inside does — but it keeps even the public CPace
/// messages off the LAN in clear text: ZRC has no plaintext path.
public struct CodePairingLink: ~Copyable, Sendable {
    public static let protocolName = "Noise_NN_25519_ChaChaPoly_BLAKE2b"
    public static let prologue = Array("ZRC pair by code LAN 1".utf8)
    /// The largest meeting point message (a CPace message of the longest AD) sealed, with room.
    public static let maximumFrameBody = 2 * CPace.maximumMessageLength

    public enum Event: Sendable, Equatable {
        /// Bytes to write to the peer (the host's handshake answer).
        case send([UInt8])
        /// The handshake is done: `seal` works from now on.
        case ready
        case message(PairingMeetingMessage)
    }

    private let role: NoiseRole
    private var handshake: HandshakeState?
    private var transport: NoiseTransport?
    private var buffer: [UInt8] = []

    /// The controller's link; send `opening()` first.
    public static func controller(crypto: any NoiseCrypto) throws(SessionError) -> CodePairingLink {
        try CodePairingLink(role: .initiator, crypto: crypto)
    }

    /// The controller's first frame (Noise NN message 1).
    public mutating func opening() throws(SessionError) -> [UInt8] {
        guard case .initiator = role, handshake != nil else {
            throw SessionError(.protocolViolation, "only a new controller's link opens")
        }
        do {
            return Self.frame(try handshake!.writeMessage())
        } catch {
            throw SessionError.from(error, during: "opening the pairing link")
        }
    }

    public static func host(crypto: any NoiseCrypto) throws(SessionError) -> CodePairingLink {
        try CodePairingLink(role: .responder, crypto: crypto)
    }

    private init(role: NoiseRole, crypto: any NoiseCrypto) throws(SessionError) {
        self.role = role
        do {
            handshake = try HandshakeState(protocolName: Self.protocolName, role: role, prologue: Self.prologue, crypto: crypto)
        } catch {
            throw SessionError.from(error, during: "starting the pairing link")
        }
    }

    /// Bytes held for an incomplete frame; bounded by one frame.
    public var bufferedByteCount: Int { buffer.count }

    /// Feeds received bytes; returns what they completed, in order.
    public mutating func receive(_ bytes: some Collection<UInt8>) throws(SessionError) -> [Event] {
        buffer.append(contentsOf: bytes)
        var events: [Event] = []
        while buffer.count >= 2 {
            let length = Int(buffer[0]) << 8 | Int(buffer[1])
            guard length <= Self.maximumFrameBody else {
                throw SessionError(.protocolViolation, "a pairing link frame of \(length) bytes is over the limit of \(Self.maximumFrameBody)")
            }
            guard buffer.count >= 2 + length else { break }
            let body = Array(buffer[2..<(2 + length)])
            buffer.removeFirst(2 + length)
            try events.append(contentsOf: handle(body))
        }
        return events
    }

    private mutating func handle(_ body: [UInt8]) throws(SessionError) -> [Event] {
        if transport != nil {
            let plaintext: [UInt8]
            do {
                plaintext = try transport!.decrypt(body)
            } catch {
                throw SessionError(.recordRejected, "a pairing link frame did not decrypt: \(error.message)")
            }
            do {
                return [.message(try PairingMeetingMessage(decoding: plaintext))]
            } catch {
                throw SessionError(.protocolViolation, "a pairing link message is malformed: \(error.message)")
            }
        }
        guard var state = handshake.take() else {
            throw SessionError(.protocolViolation, "the pairing link failed earlier")
        }
        do {
            _ = try state.readMessage(body)
            var events: [Event] = []
            if case .responder = role {
                events.append(.send(Self.frame(try state.writeMessage())))
            }
            transport = try state.split()
            events.append(.ready)
            return events
        } catch {
            throw SessionError(.handshakeFailed, "the pairing link's handshake failed: \(error.message)")
        }
    }

    /// A message sealed into a frame, once `ready`.
    public mutating func seal(_ message: PairingMeetingMessage) throws(SessionError) -> [UInt8] {
        guard transport != nil else {
            throw SessionError(.protocolViolation, "the pairing link is not ready")
        }
        do {
            return Self.frame(try transport!.encrypt(message.bytes))
        } catch {
            throw SessionError.from(error, during: "sealing a pairing link message")
        }
    }

    static func frame(_ body: [UInt8]) -> [UInt8] {
        [UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }
}
