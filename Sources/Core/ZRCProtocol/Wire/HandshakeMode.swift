/// Why a controller connects: to pair using an invite (Noise IKpsk2 with the invite secret as psk)
/// or to open a session as an already authorized controller (Noise IK).
public enum HandshakeMode: UInt8, Sendable, Hashable {
    case pair = 1
    case session = 2
}
