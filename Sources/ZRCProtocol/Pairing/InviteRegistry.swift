/// The host's open invites and their life cycle, as a pure state machine.
///
/// An invite is single-use: the first pairing attempt that names it reserves it, so a concurrent
/// second attempt is refused; if that attempt proves the secret the invite is burned, otherwise
/// (the connection failed before the proof) the reservation is released and the invite can be
/// used again until it expires.
public struct InviteRegistry: Sendable {
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        case unknown
        case expired
        case alreadyUsed
        case inUse

        public var description: String {
            switch self {
            case .unknown: "no such invite"
            case .expired: "the invite has expired"
            case .alreadyUsed: "the invite was already used"
            case .inUse: "another pairing attempt is using the invite"
            }
        }
    }

    private enum State: Sendable {
        case open
        case reserved(connection: UInt64)
        case burned
    }

    private struct Entry: Sendable {
        let secret: SecretBytes
        let expiresAt: UInt64
        var state: State
    }

    private var entries: [[UInt8]: Entry] = [:]

    public init() {}

    /// Number of invites that can still be used at `now`.
    public func openCount(now: UInt64) -> Int {
        entries.values.count { entry in
            if case .burned = entry.state { return false }
            return now < entry.expiresAt
        }
    }

    public mutating func add(id: [UInt8], secret: SecretBytes, expiresAt: UInt64) {
        entries[id] = Entry(secret: secret, expiresAt: expiresAt, state: .open)
    }

    /// Reserves the invite for `connection` and returns its secret for the pairing psk.
    public mutating func reserve(id: [UInt8], now: UInt64, connection: UInt64) throws(Refusal) -> SecretBytes {
        guard var entry = entries[id] else { throw .unknown }
        guard now < entry.expiresAt else {
            entries[id] = nil
            throw .expired
        }
        purgeExpired(now: now)
        switch entry.state {
        case .open:
            entry.state = .reserved(connection: connection)
            entries[id] = entry
            return entry.secret
        case .reserved:
            throw .inUse
        case .burned:
            throw .alreadyUsed
        }
    }

    /// The attempt failed before proving the secret: the invite is usable again.
    public mutating func release(id: [UInt8], connection: UInt64) {
        guard var entry = entries[id], case .reserved(let holder) = entry.state, holder == connection else { return }
        entry.state = .open
        entries[id] = entry
    }

    /// The controller proved the secret: the invite can never be used again.
    public mutating func burn(id: [UInt8], connection: UInt64) {
        guard var entry = entries[id], case .reserved(let holder) = entry.state, holder == connection else { return }
        entry.state = .burned
        entries[id] = entry
    }

    /// Forgets invites past their expiry; burned ones are kept until then so a second use is
    /// reported as such rather than as unknown.
    public mutating func purgeExpired(now: UInt64) {
        entries = entries.filter { now < $0.value.expiresAt }
    }
}
