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

    /// Largest screen side in pixels (`frameUpdate`).
    public static let maxScreenSide = 16384

    /// Largest screen area in pixels: 2^25 = 33,554,432, which holds 8K UHD (7680 × 4320) and
    /// three 4K monitors side by side, and caps the controller's framebuffer at 128 MiB however
    /// large a hostile host claims its screen is. The rects of one `frameUpdate` together cover
    /// at most the screen's area, so no update makes the controller decode or fill more pixels.
    public static let maxScreenPixels = 1 << 25

    /// Largest clipboard content either way: 1 MiB, a long document's text; more would rather be
    /// a file transfer, and a peer cannot make the other side buffer more.
    public static let maxClipboardBytes = 1 << 20

    /// Largest application message a host accepts from a controller. Controllers send input,
    /// acknowledgements, pings, short strings (typed text is at most `maxStringBytes`) and
    /// clipboard content, never frames: a clipboard message and its header fit, and a
    /// controller cannot make the host buffer more than that per session.
    public static let maxControllerMessageLength = maxClipboardBytes + 1024

    /// Address entries in an invite: at least one to dial, at most a handful to try.
    public static let maxInviteAddresses = 8
}
