/// The plaintext payload of Noise handshake message 1 (controller → host).
///
/// Wire layout: u8 mode (1 pair, 2 session), u64 timestampMicros, then for pair mode the 16-byte
/// invite ID or for session mode u32 requested `SessionFlags`, then the agent string (u16 length +
/// UTF-8, ≤ 4096 bytes). The host acts on none of it before the handshake completes.
public struct HandshakeInitPayload: Sendable, Equatable {
    public enum Purpose: Sendable, Equatable {
        /// Pair using the invite with this ID; its secret is the handshake psk.
        case pair(inviteID: InviteID)
        /// Open a session with these requested flags.
        case session(requested: SessionFlags)
    }

    public var purpose: Purpose
    /// Unix time in microseconds when the controller built the message. The host accepts each
    /// timestamp once, and none older than 10 s before the newest it accepted from the same key,
    /// so a recorded message 1 cannot be replayed.
    public var timestampMicros: UInt64
    /// Program and version, e.g. "zrc-ctl/0.1 (linux)"; for logs only.
    public var agent: String

    public init(purpose: Purpose, timestampMicros: UInt64, agent: String) {
        self.purpose = purpose
        self.timestampMicros = timestampMicros
        self.agent = agent
    }

    public var mode: HandshakeMode {
        switch purpose {
        case .pair: .pair
        case .session: .session
        }
    }

    public func encode() -> [UInt8] {
        var writer = ByteWriter()
        writer.write(mode.rawValue)
        writer.write(timestampMicros)
        switch purpose {
        case .pair(let inviteID): writer.write(bytes: inviteID.bytes)
        case .session(let requested): writer.write(requested.rawValue)
        }
        writer.write(string: agent)
        return writer.bytes
    }

    public static func decode(_ bytes: [UInt8]) throws(WireError) -> HandshakeInitPayload {
        var reader = ByteReader(bytes, context: "handshake message 1 payload")
        let modeByte = try reader.readUInt8("mode")
        guard let mode = HandshakeMode(rawValue: modeByte) else {
            throw reader.invalid("mode", "is \(modeByte); known modes are 1 pair and 2 session")
        }
        let timestampMicros = try reader.readUInt64("timestampMicros")
        let purpose: Purpose
        switch mode {
        case .pair:
            purpose = .pair(inviteID: try InviteID(bytes: try reader.readBytes(count: InviteID.length, "inviteID")))
        case .session:
            purpose = .session(requested: SessionFlags(rawValue: try reader.readUInt32("requested flags")))
        }
        let agent = try reader.readString("agent")
        try reader.expectEnd()
        return HandshakeInitPayload(purpose: purpose, timestampMicros: timestampMicros, agent: agent)
    }
}
