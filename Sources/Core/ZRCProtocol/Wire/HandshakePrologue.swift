/// The Noise prologue both sides mix into the handshake hash:
///
///     "ZRC/1 " ‖ controller preamble (8 bytes, as sent) ‖ host preamble (8 bytes, as sent) ‖ mode
///     ‖ invite ID (16 bytes, pairing only)
///
/// Everything either side said before the handshake is in it, so a man in the middle who changes
/// a preamble's version or flag bits, flips the mode (a session made to look like a pairing) or
/// swaps the invite ID makes the two hashes differ and the handshake fail, instead of the peers
/// proceeding on what he told them.
public enum HandshakePrologue {
    public static let prefix: [UInt8] = Array("ZRC/1 ".utf8)

    public static func bytes(mode: HandshakeMode, controllerPreamble: [UInt8], hostPreamble: [UInt8], inviteID: InviteID?) -> [UInt8] {
        prefix + controllerPreamble + hostPreamble + [mode.rawValue] + (inviteID?.bytes ?? [])
    }
}
