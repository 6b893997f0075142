internal import CReach
import Foundation
public import ZRCProtocol

/// coturn's REST scheme (draft-uberti-behave-turn-rest): username `expiry:label`, password
/// base64(HMAC-SHA1(secret, username)). The host mints such credentials for each paired
/// controller from its relays' shared secrets, so the secret itself never leaves the host.
public enum TurnRESTCredentials {
    /// How long minted credentials last: a day, renewed at every session and answer.
    public static let lifetimeSeconds: UInt64 = 24 * 3600

    /// The password for `username` under `secret`; nil if GLib could not compute it.
    public static func password(secret: String, username: String) -> String? {
        var output = [CChar](repeating: 0, count: 64)
        guard zrc_turn_rest_password(secret, username, &output, output.count) == 0 else { return nil }
        return String(cString: output)
    }

    /// Credentials for `relay` (a relay given by a REST secret; nil for any other), labelled
    /// `label` (which controller they are for, as the relay's logs will show), valid from `now`.
    public static func mint(for relay: ReachURL, label: String, nowUnixSeconds: UInt64,
                            lifetime: UInt64 = lifetimeSeconds) -> RelayCredential? {
        guard case .sharedSecret(let secret) = relay.credentials else { return nil }
        let expiresAt = nowUnixSeconds + lifetime
        let username = "\(expiresAt):\(label)"
        guard let password = password(secret: secret, username: username) else { return nil }
        return RelayCredential(relay: relay.endpoint, username: username, password: password, expiresAt: expiresAt)
    }
}
