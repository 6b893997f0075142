/// Time-limited credentials for one TURN relay, minted by the host from the relay's REST shared
/// secret (coturn's `use-auth-secret`) for one paired controller, and handed to it only inside
/// authenticated channels: a session (`relayCredentials`), a pairing, a sealed answer. The
/// controller keeps them for its next offers; they simply expire (a revoked controller's too).
/// Invites name relays without any credentials.
public struct RelayCredential: Sendable, Hashable {
    /// The relay as `host:port` (its URL's endpoint; either transport).
    public var relay: String
    public var username: String
    public var password: String
    /// Unix seconds after which the relay refuses them.
    public var expiresAt: UInt64

    /// At most this many in one list (libnice takes 4 relays).
    public static let maximumCount = 4

    public init(relay: String, username: String, password: String, expiresAt: UInt64) {
        self.relay = relay
        self.username = username
        self.password = password
        self.expiresAt = expiresAt
    }

    /// Whether they are still good for at least `margin` seconds at `unixSeconds`.
    public func isUsable(atUnixSeconds unixSeconds: UInt64, margin: UInt64 = 60) -> Bool {
        expiresAt > unixSeconds &+ margin
    }

    /// Why a decoded credential is unusable, or nil.
    func problem() -> String? {
        guard HostPort(parsing: relay, defaultPort: 3478) != nil, !relay.isEmpty else { return "relay `\(relay)` is not host:port" }
        guard !username.isEmpty, !password.isEmpty else { return "empty username or password" }
        return nil
    }

    /// `u8` count (0…4), then per relay: `shortString` relay, `shortString` username,
    /// `shortString` password, `u64` expiresAt.
    static func write(_ list: [RelayCredential], to writer: inout ByteWriter) {
        let list = list.prefix(maximumCount)
        writer.write(UInt8(list.count))
        for credential in list {
            writer.write(shortString: credential.relay)
            writer.write(shortString: credential.username)
            writer.write(shortString: credential.password)
            writer.write(credential.expiresAt)
        }
    }

    static func read(from reader: inout ByteReader) throws(WireError) -> [RelayCredential] {
        let count = Int(try reader.readUInt8("relay credential count"))
        guard count <= maximumCount else { throw reader.invalid("relay credential count", "\(count) relays; at most \(maximumCount)") }
        var list: [RelayCredential] = []
        for index in 0..<count {
            let credential = RelayCredential(relay: try reader.readShortString("relays[\(index)].relay"),
                                             username: try reader.readShortString("relays[\(index)].username"),
                                             password: try reader.readShortString("relays[\(index)].password"),
                                             expiresAt: try reader.readUInt64("relays[\(index)].expiresAt"))
            if let problem = credential.problem() { throw reader.invalid("relays[\(index)]", problem) }
            list.append(credential)
        }
        return list
    }
}
