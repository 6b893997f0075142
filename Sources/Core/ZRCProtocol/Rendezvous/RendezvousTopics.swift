/// The broker topics of one pairing. Both sides derive the same secret from their static keys
/// alone (`DH(host, controller)`: nothing new to store or exchange, and existing pairings work),
/// and from it a token that changes every UTC day, so the broker cannot link a pairing's offers
/// across days and nobody without the pairing can even find its topic.
///
/// - pair key = first 32 bytes of BLAKE2b-512("ZRC rendezvous pair v1" ‖ DH ‖ host key ‖ controller key)
/// - inbox token(day) = first 16 bytes of BLAKE2b-512("ZRC rendezvous inbox v1" ‖ pair key ‖ day as u32 BE)
/// - offers go to `zrc/v1/in/<hex token>`; answers to `zrc/v1/out/<hex reply token>`, the reply
///   token being random per offer.
public struct RendezvousTopics: Sendable {
    private let pairKey: SecretBytes
    private let crypto: any NoiseCrypto

    public static let secondsPerDay: UInt64 = 86_400
    static let pairLabel = Array("ZRC rendezvous pair v1".utf8)
    static let inboxLabel = Array("ZRC rendezvous inbox v1".utf8)

    public init(local: NoiseKeyPair, remote: NoisePublicKey, localIsHost: Bool, crypto: any NoiseCrypto) throws(NoiseError) {
        let shared = try crypto.dh(privateKey: local.privateKey, publicKey: remote)
        let (host, controller) = localIsHost ? (local.publicKey, remote) : (remote, local.publicKey)
        let digest = SecretBytes(count: crypto.hashLength) { output in
            Self.pairLabel.withUnsafeBytes { label in
                shared.withUnsafeBytes { sharedBytes in
                    host.bytes.withUnsafeBytes { hostBytes in
                        controller.bytes.withUnsafeBytes { crypto.hash([label, sharedBytes, hostBytes, $0], into: output) }
                    }
                }
            }
        }
        pairKey = digest.withUnsafeBytes { SecretBytes($0.prefix(32)) }
        self.crypto = crypto
    }

    public static func day(unixSeconds: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: unixSeconds / secondsPerDay) }

    public func inboxTopic(day: UInt32) -> String {
        var output = [UInt8](repeating: 0, count: crypto.hashLength)
        let dayBytes: [UInt8] = [UInt8(day >> 24), UInt8(day >> 16 & 0xFF), UInt8(day >> 8 & 0xFF), UInt8(day & 0xFF)]
        Self.inboxLabel.withUnsafeBytes { label in
            pairKey.withUnsafeBytes { key in
                dayBytes.withUnsafeBytes { dayPointer in
                    output.withUnsafeMutableBytes { crypto.hash([label, key, dayPointer], into: $0) }
                }
            }
        }
        return "zrc/v1/in/" + Hex.encode(output.prefix(RendezvousMessage.tokenLength))
    }

    /// The topics a host listens on at `unixSeconds`: today's, and the neighbouring day's only
    /// within `margin` seconds of midnight (a controller whose clock is on the other side of it
    /// still reaches the host). Outside that window a broker sees one day's topic alone.
    public func hostInboxTopics(unixSeconds: UInt64, margin: UInt64) -> [String] {
        Self.days(around: unixSeconds, margin: margin).map(inboxTopic(day:))
    }

    /// The days whose topics are live at `unixSeconds` (see `hostInboxTopics`).
    public static func days(around unixSeconds: UInt64, margin: UInt64) -> [UInt32] {
        let earliest = day(unixSeconds: unixSeconds > margin ? unixSeconds - margin : 0)
        let latest = day(unixSeconds: unixSeconds &+ margin)
        return Array(Set([earliest, day(unixSeconds: unixSeconds), latest])).sorted()
    }

    public static func replyTopic(token: [UInt8]) -> String { "zrc/v1/out/" + Hex.encode(token) }

    /// The controller's MQTT client ID: its reply token, so a broker can restrict each client to
    /// reading its own reply topic (`pattern read zrc/v1/out/%c`).
    public static func clientID(replyToken token: [UInt8]) -> String { Hex.encode(token) }
}
