/// Every fixed limit of protocol version 1 in one place, so the spec (Schemas/wire-protocol.md),
/// the decoders and the tests cannot drift apart.
public enum WireLimits {
    /// The protocol major version this code speaks; sent in the preamble and the handshake response.
    public static let protocolVersion: UInt16 = 1

    /// Longest string field, in UTF-8 bytes. Names and typed text are small; a cap keeps a peer from
    /// making us buffer or render megabytes of "name".
    public static let maxStringBytes = 4096

    /// Largest record body: the Noise message limit, so one record always holds one Noise message.
    public static let maxRecordBody = 65535

    /// ChaCha20-Poly1305 tag appended to every transport message by the Noise layer.
    public static let aeadTagLength = 16

    /// Largest plaintext inside one transport record.
    public static let maxTransportPlaintext = maxRecordBody - aeadTagLength

    /// Default cap on a reassembled application message. Large enough for a full raw 4K frame
    /// (3840 × 2160 × 4 bytes ≈ 31.6 MiB), small enough that a peer cannot exhaust memory.
    public static let defaultMaxMessageLength = 32 * 1024 * 1024

    /// Largest cursor image side in pixels; X servers cap cursors well below this.
    public static let maxCursorSide = 256

    /// Address entries in an invite: at least one to dial, at most a handful to try.
    public static let maxInviteAddresses = 8
}
