/// What both sides derive from a CPace run's key for ZRC's pairing by code: the controller's
/// confirmation (it proves the controller knew the code, so one run is one guess), and the invite
/// ID and 16-byte secret with which the ordinary `Noise_IKpsk2` pairing then runs.
///
/// Each value is SHA-512(lv_cat(label, ISK, transcript)) cut to its length; the labels keep them
/// apart, and none lets anyone recover ISK or another value.
public struct CodePairingKeys: Sendable {
    public let inviteID: InviteID
    public let secret: SecretBytes
    /// Sent by the controller after the host's CPace message; the host checks it before anything
    /// it sends depends on the key.
    public let confirmation: [UInt8]

    public static let confirmationLength = 32
    static let confirmationLabel = Array("ZRC pair by code: controller confirms".utf8)
    static let inviteIDLabel = Array("ZRC pair by code: invite ID".utf8)
    static let secretLabel = Array("ZRC pair by code: pairing secret".utf8)

    /// `transcript`: the initiator's CPace message followed by the responder's.
    public init(key: SecretBytes, transcript: [UInt8], group: any CPaceGroup) {
        func derive(_ label: [UInt8], _ length: Int) -> [UInt8] {
            var input = key.withUnsafeBytes { CPace.lengthValueConcatenation([label, Array($0), transcript]) }
            defer { input.withUnsafeMutableBytes { CPace.wipe($0) } }
            return Array(group.sha512([input]).prefix(length))
        }
        confirmation = derive(Self.confirmationLabel, Self.confirmationLength)
        // 16 bytes is InviteID's length.
        inviteID = try! InviteID(bytes: derive(Self.inviteIDLabel, InviteID.length))
        var secretBytes = derive(Self.secretLabel, Invite.secretLength)
        secret = SecretBytes(secretBytes)
        secretBytes.withUnsafeMutableBytes { CPace.wipe($0) }
    }

    /// Whether `tag` is this run's confirmation, compared in constant time.
    public func confirms(_ tag: [UInt8]) -> Bool {
        guard tag.count == confirmation.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(tag, confirmation) { difference |= a ^ b }
        return difference == 0
    }
}
