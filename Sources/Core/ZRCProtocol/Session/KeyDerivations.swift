/// Values derived from keys with the suite's hash: the pairing psk and key fingerprints.
public enum KeyDerivations {
    static let pairingLabel = Array("ZRC pairing psk v1".utf8)
    static let fingerprintLabel = Array("ZRC key fingerprint v1".utf8)

    /// psk = first 32 bytes of BLAKE2b-512("ZRC pairing psk v1" ‖ invite ID ‖ invite secret).
    /// Binding the invite ID means one invite's secret can never serve another invite.
    public static func pairingPSK(inviteID: InviteID, secret: SecretBytes, crypto: any NoiseCrypto) -> SecretBytes {
        // The full digest never exists outside wiped-on-release storage.
        let digest = SecretBytes(count: crypto.hashLength) { output in
            pairingLabel.withUnsafeBytes { label in
                inviteID.bytes.withUnsafeBytes { id in
                    secret.withUnsafeBytes { secretBytes in crypto.hash([label, id, secretBytes], into: output) }
                }
            }
        }
        return digest.withUnsafeBytes { SecretBytes($0.prefix(32)) }
    }

    /// A short, human-comparable name for a public key: the first 80 bits of unkeyed BLAKE2b-512
    /// over "ZRC key fingerprint v1" ‖ key, in lower-case RFC 4648 base32 without padding, grouped
    /// by four (key 00 01 … 1f → `62tr-hyko-cgya-gkec`; session-protocol.md pins this). Shown when
    /// pairing and in listings so a user can compare what two machines display.
    public static func fingerprint(of publicKey: NoisePublicKey, crypto: any NoiseCrypto) -> String {
        var digest = [UInt8](repeating: 0, count: crypto.hashLength)
        fingerprintLabel.withUnsafeBytes { label in
            publicKey.bytes.withUnsafeBytes { key in
                digest.withUnsafeMutableBytes { crypto.hash([label, key], into: $0) }
            }
        }
        let text = Base32.encode(Array(digest.prefix(10)))
        var groups: [Substring] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            groups.append(rest.prefix(4))
            rest = rest.dropFirst(4)
        }
        return groups.joined(separator: "-")
    }
}
