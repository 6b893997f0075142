/// The Noise prologue both sides mix into the handshake hash: ASCII "ZRC/1 " followed by the mode
/// byte. A man in the middle who flips the mode (e.g. to make a session look like a pairing) makes
/// the two hashes differ, so the handshake fails instead of running in the wrong mode.
public enum HandshakePrologue {
    public static let prefix: [UInt8] = Array("ZRC/1 ".utf8)

    public static func bytes(for mode: HandshakeMode) -> [UInt8] {
        prefix + [mode.rawValue]
    }
}
