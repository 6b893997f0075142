/// The plaintext payload of Noise handshake message 2 (host → controller).
///
/// Wire layout: u16 protocolVersion, u64 sessionID, u32 granted `SessionFlags`, hostName string
/// (u16 length + UTF-8, ≤ 4096 bytes).
public struct HandshakeResponsePayload: Sendable, Equatable {
    /// The host's protocol major version (equal to the preamble's; repeated here under encryption).
    public var protocolVersion: UInt16
    /// Chosen by the host, unique among its sessions; for logs and for `replaced` notices.
    public var sessionID: UInt64
    /// What the host allows; may differ from what was requested (e.g. forced view-only).
    public var granted: SessionFlags
    /// The host's display name, for the controller's status line and known-hosts entry.
    public var hostName: String

    public init(protocolVersion: UInt16 = WireLimits.protocolVersion, sessionID: UInt64, granted: SessionFlags, hostName: String) {
        self.protocolVersion = protocolVersion
        self.sessionID = sessionID
        self.granted = granted
        self.hostName = hostName
    }

    public func encode() -> [UInt8] {
        var writer = ByteWriter()
        writer.write(protocolVersion)
        writer.write(sessionID)
        writer.write(granted.rawValue)
        writer.write(string: hostName)
        return writer.bytes
    }

    public static func decode(_ bytes: [UInt8]) throws(WireError) -> HandshakeResponsePayload {
        var reader = ByteReader(bytes, context: "handshake message 2 payload")
        let payload = HandshakeResponsePayload(
            protocolVersion: try reader.readUInt16("protocolVersion"),
            sessionID: try reader.readUInt64("sessionID"),
            granted: SessionFlags(rawValue: try reader.readUInt32("granted flags")),
            hostName: try reader.readString("hostName"))
        try reader.expectEnd()
        return payload
    }
}
