/// The TXT record `h=` a host publishes on the LAN: 8 bytes of BLAKE2b-512("ZRC LAN hint v1" ‖
/// host key ‖ UTC day as u32 BE), in hex. A controller that knows the host's key recognises it
/// (today's, yesterday's or tomorrow's hint, for clocks on either side of midnight); anyone else
/// sees a value that changes daily and says nothing about the key. It only says where to try:
/// the handshake still proves the key.
public enum LanHint {
    static let label = Array("ZRC LAN hint v1".utf8)
    public static let txtKey = "h"

    public static func hint(hostKey: NoisePublicKey, day: UInt32, crypto: any NoiseCrypto) -> String {
        var output = [UInt8](repeating: 0, count: crypto.hashLength)
        let dayBytes: [UInt8] = [UInt8(day >> 24), UInt8(day >> 16 & 0xFF), UInt8(day >> 8 & 0xFF), UInt8(day & 0xFF)]
        label.withUnsafeBytes { labelBytes in
            hostKey.bytes.withUnsafeBytes { key in
                dayBytes.withUnsafeBytes { dayPointer in
                    output.withUnsafeMutableBytes { crypto.hash([labelBytes, key, dayPointer], into: $0) }
                }
            }
        }
        return Hex.encode(output.prefix(8))
    }

    /// Whether `hint` names the host with `hostKey` around `unixSeconds`.
    public static func matches(_ hint: String, hostKey: NoisePublicKey, unixSeconds: UInt64, crypto: any NoiseCrypto) -> Bool {
        let today = RendezvousTopics.day(unixSeconds: unixSeconds)
        return [today &- 1, today, today &+ 1].contains { self.hint(hostKey: hostKey, day: $0, crypto: crypto) == hint }
    }
}
