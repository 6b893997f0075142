/// The host's open invites and their life cycle, as a pure state machine.
///
/// An invite is single-use. A pairing attempt only looks its secret up (`secret(for:now:)`) to
/// run the handshake; nothing is reserved then, because whoever has an old invite's host key and
/// a fresh invite ID could otherwise hold the invite and block the real pairing. The invite is
/// taken (`redeem`) only once an attempt has proven the secret — its first encrypted message
/// decrypted under the invite's psk — and the first to prove it wins; a later proof is told the
/// invite was used.
public struct InviteRegistry: Sendable {
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        case unknown
        case expired
        case alreadyUsed
        /// The invite came from pairing by code and names another controller key.
        case otherController

        public var description: String {
            switch self {
            case .unknown: "no such invite"
            case .expired: "the invite has expired"
            case .alreadyUsed: "the invite was already used"
            case .otherController: "the invite was made for another controller"
            }
        }
    }

    private enum State: Sendable {
        case open
        case redeemed
    }

    private struct Entry: Sendable {
        let secret: SecretBytes
        let expiresAt: UInt64
        /// Pairing by code: the controller key CPace authenticated, the only one that may redeem.
        let controllerKey: NoisePublicKey?
        var state: State
    }

    private var entries: [[UInt8]: Entry] = [:]

    public init() {}

    /// Number of invites that can still be used at `now`.
    public func openCount(now: UInt64) -> Int {
        entries.values.count { entry in
            if case .redeemed = entry.state { return false }
            return now < entry.expiresAt
        }
    }

    /// A new invite; with `controllerKey`, only that controller can redeem it.
    public mutating func add(id: [UInt8], secret: SecretBytes, expiresAt: UInt64, controllerKey: NoisePublicKey? = nil) {
        entries[id] = Entry(secret: secret, expiresAt: expiresAt, controllerKey: controllerKey, state: .open)
    }

    /// The invite's secret, for the pairing psk, while it can still be used; reserves nothing.
    public mutating func secret(for id: [UInt8], now: UInt64) throws(Refusal) -> SecretBytes {
        let entry = try usable(id, now: now)
        return entry.secret
    }

    /// An attempt proved the secret: the invite is used up, unless another proof came first.
    public mutating func redeem(id: [UInt8], now: UInt64, controllerKey: NoisePublicKey) throws(Refusal) {
        var entry = try usable(id, now: now)
        if let bound = entry.controllerKey, bound != controllerKey { throw .otherController }
        entry.state = .redeemed
        entries[id] = entry
    }

    /// Takes an invite back before it was used (a withdrawn pairing code's).
    public mutating func remove(id: [UInt8]) {
        entries[id] = nil
    }

    /// The pairing could not be completed after `redeem` (the host failed to save it): the
    /// invite can be used again until it expires.
    public mutating func restore(id: [UInt8]) {
        guard var entry = entries[id], case .redeemed = entry.state else { return }
        entry.state = .open
        entries[id] = entry
    }

    private mutating func usable(_ id: [UInt8], now: UInt64) throws(Refusal) -> Entry {
        guard let entry = entries[id] else { throw .unknown }
        guard now < entry.expiresAt else {
            entries[id] = nil
            throw .expired
        }
        purgeExpired(now: now)
        switch entry.state {
        case .open: return entry
        case .redeemed: throw .alreadyUsed
        }
    }

    /// Forgets invites past their expiry; redeemed ones are kept until then so a second use is
    /// reported as such rather than as unknown.
    public mutating func purgeExpired(now: UInt64) {
        entries = entries.filter { now < $0.value.expiresAt }
    }
}
