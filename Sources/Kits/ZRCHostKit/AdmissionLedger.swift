import ZRCProtocol

/// The host's capacity limits (see `AdmissionLedger`).
public struct AdmissionLimits: Sendable, Equatable {
    /// Connections not yet past their preamble, in all and from one source address.
    public var maximumUnidentifiedConnections = 512
    public var maximumConnectionsPerSource = 32
    /// Handshakes in progress (past the preamble), in all and from one source address.
    public var maximumHandshakes = 64
    public var maximumHandshakesPerSource = 8
    /// From this share of `maximumHandshakes` on, new handshakes are dropped at random, with a
    /// probability rising linearly to 1 at the maximum (random early drop).
    public var earlyDropThreshold = 0.75
    /// Sessions (live or being set up) one controller key may hold.
    public var maximumSessionsPerController = 4
    /// Handshake slots beyond `maximumHandshakes` kept for addresses a paired controller
    /// authenticated from recently: a flood from a few addresses fills the general slots, never
    /// these. Also beyond the unidentified-connection cap: as many more connections for them.
    public var reservedHandshakes = 16
    /// Handshake slots for streams adopted from the rendezvous (a pool of their own).
    public var rendezvousHandshakes = 8
    /// How long an address stays "recently authenticated", and how many are remembered (the
    /// least recent goes first).
    public var trustedSourceLifetimeMicros: UInt64 = 24 * 3600 * 1_000_000
    public var maximumTrustedSources = 1024

    public init() {}
}

/// Who may connect, start a handshake or hold a session: the host's defence against connection
/// floods and against one controller hogging it, as pure bookkeeping (no I/O, no clock; the
/// caller supplies randomness), so every rule is tested directly.
///
/// A connection goes through two stages before it is a session:
/// 1. **connected** — accepted, nothing proven. Costs a socket and a timer for at most the
///    handshake timeout. Capped per source address and in all, so idle connections cannot pile up.
/// 2. **handshaking** — a valid preamble and record header arrived, so it speaks ZRC; it holds one
///    of the handshake slots the expensive part (X25519, key lookups) needs. Capped per source and
///    in all, with random early drop as the slots fill, so a flood from one machine cannot keep
///    every slot taken.
/// A third pool protects paired controllers: addresses that authenticated recently (a session's
/// first authenticated message, a completed pairing) may use `reservedHandshakes` more slots when
/// the general ones are full, and are never dropped early; streams adopted from the rendezvous
/// (each vouched for by a sealed offer) have slots of their own. Sources count per IPv4 address
/// and per IPv6 /64 (`AdmissionSource`).
/// Sessions are capped per controller key, and control (input) goes to one controller at a time,
/// claimed only when the controller's first authenticated message arrives. The sessions of the
/// controller in control share it (one person with a viewer open and a scripted `input` beside
/// it); only other controllers are demoted or refused by the policy.
struct AdmissionLedger: Sendable {
    typealias Limits = AdmissionLimits

    enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        case tooManyConnectionsFromSource
        case tooManyConnections
        case tooManyHandshakesFromSource
        case tooManyHandshakes
        case earlyDrop
        case tooManySessions

        var description: String {
            switch self {
            case .tooManyConnectionsFromSource: "refused: too many unidentified connections from this address"
            case .tooManyConnections: "refused: too many unidentified connections"
            case .tooManyHandshakesFromSource: "refused: too many handshakes in progress from this address"
            case .tooManyHandshakes: "refused: too many handshakes in progress"
            case .earlyDrop: "refused: handshake slots nearly full (random early drop)"
            case .tooManySessions: "refused: this controller already has the most sessions allowed"
            }
        }
    }

    /// The pool a handshake slot came from (returned when the handshake ends).
    enum SlotPool: Sendable, Equatable {
        case general
        case reserved
        case rendezvous
    }

    let limits: Limits
    private var connectionsBySource: [AdmissionSource: Int] = [:]
    private var handshakesBySource: [AdmissionSource: Int] = [:]
    private(set) var unidentifiedConnections = 0
    /// Slots taken, per pool.
    private(set) var handshakes = 0
    private(set) var reservedInUse = 0
    private(set) var rendezvousInUse = 0
    /// Addresses that authenticated, with when they last did.
    private var trusted: [AdmissionSource: UInt64] = [:]
    private var sessionsByController: [NoisePublicKey: Set<UInt64>] = [:]
    private var nextSessionID: UInt64 = 1
    /// The controller in control (input allowed) and its sessions that claimed it.
    private(set) var control: (controller: NoisePublicKey, sessions: Set<UInt64>)?

    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    // MARK: Connections and handshakes

    /// A connection was accepted from `source` at `now`; nil admits it (pair with
    /// `connectionIdentified` or `connectionClosed`).
    mutating func connectionOpened(source: AdmissionSource, nowMicros: UInt64) -> Refusal? {
        if connectionsBySource[source, default: 0] >= limits.maximumConnectionsPerSource { return .tooManyConnectionsFromSource }
        let cap = limits.maximumUnidentifiedConnections + (isTrusted(source, nowMicros: nowMicros) ? limits.reservedHandshakes : 0)
        if unidentifiedConnections >= cap { return .tooManyConnections }
        connectionsBySource[source, default: 0] += 1
        unidentifiedConnections += 1
        return nil
    }

    /// An admitted connection went away before it was identified.
    mutating func connectionClosed(source: AdmissionSource) {
        decrement(&connectionsBySource, source)
        unidentifiedConnections -= 1
    }

    /// An admitted connection sent a valid preamble and record header: it leaves the
    /// unidentified pool and asks for a handshake slot. `random` is uniform in 0..<1. Success
    /// names the pool the slot came from (pass it to `handshakeEnded`); either way the connection
    /// is no longer unidentified.
    mutating func connectionIdentified(source: AdmissionSource, random: Double, nowMicros: UInt64) -> Result<SlotPool, Refusal> {
        connectionClosed(source: source)
        if handshakesBySource[source, default: 0] >= limits.maximumHandshakesPerSource { return .failure(.tooManyHandshakesFromSource) }
        let pool: SlotPool
        switch source.kind {
        case .rendezvous:
            guard rendezvousInUse < limits.rendezvousHandshakes else { return .failure(.tooManyHandshakes) }
            rendezvousInUse += 1
            pool = .rendezvous
        case .address:
            let trusted = isTrusted(source, nowMicros: nowMicros)
            if handshakes < limits.maximumHandshakes {
                // Random early drop as the general slots fill; never for a trusted address.
                let threshold = Double(limits.maximumHandshakes) * limits.earlyDropThreshold
                if !trusted, Double(handshakes) >= threshold {
                    let dropProbability = (Double(handshakes) - threshold + 1) / (Double(limits.maximumHandshakes) - threshold + 1)
                    if random < dropProbability { return .failure(.earlyDrop) }
                }
                handshakes += 1
                pool = .general
            } else if trusted, reservedInUse < limits.reservedHandshakes {
                reservedInUse += 1
                pool = .reserved
            } else {
                return .failure(.tooManyHandshakes)
            }
        }
        handshakesBySource[source, default: 0] += 1
        return .success(pool)
    }

    /// A handshake that held a slot from `pool` finished (either way).
    mutating func handshakeEnded(source: AdmissionSource, pool: SlotPool) {
        decrement(&handshakesBySource, source)
        switch pool {
        case .general: handshakes -= 1
        case .reserved: reservedInUse -= 1
        case .rendezvous: rendezvousInUse -= 1
        }
    }

    /// A controller authenticated from `source` (an address; streams from the rendezvous have
    /// their own pool): it may use the reserved slots for `trustedSourceLifetimeMicros`.
    mutating func sourceAuthenticated(_ source: AdmissionSource, nowMicros: UInt64) {
        guard case .address = source.kind else { return }
        trusted[source] = nowMicros
        if trusted.count > limits.maximumTrustedSources, let oldest = trusted.min(by: { $0.value < $1.value })?.key {
            trusted[oldest] = nil
        }
    }

    func isTrusted(_ source: AdmissionSource, nowMicros: UInt64) -> Bool {
        guard let since = trusted[source] else { return false }
        return nowMicros >= since && nowMicros - since <= limits.trustedSourceLifetimeMicros
    }

    // MARK: Sessions

    /// Reserves a session for `controller`, or refuses when it holds the most allowed already.
    mutating func openSession(controller: NoisePublicKey) -> Result<UInt64, Refusal> {
        var held = sessionsByController[controller, default: []]
        guard held.count < limits.maximumSessionsPerController else { return .failure(.tooManySessions) }
        let id = nextSessionID
        nextSessionID += 1
        held.insert(id)
        sessionsByController[controller] = held
        return .success(id)
    }

    /// What a new session of `controller` may do, decided from the current state but not yet
    /// taken: control when nobody has it or `controller` has it (claimed later with
    /// `claimControl`), else what the policy says; nil: refused by policy.
    func grant(controller: NoisePublicKey, requestedViewOnly: Bool, policy: SessionPolicy) -> SessionFlags? {
        if requestedViewOnly { return .viewOnly }
        if mayControl(controller) { return [] }
        switch policy {
        case .viewOnly: return .viewOnly
        case .refuse: return nil
        }
    }

    /// The session's controller proved itself (its first authenticated message): the session
    /// takes control if nobody has it or shares it when its own controller has it. False when
    /// another controller took control meanwhile.
    mutating func claimControl(session: UInt64, controller: NoisePublicKey) -> Bool {
        guard mayControl(controller) else { return false }
        var sessions = control?.sessions ?? []
        sessions.insert(session)
        control = (controller, sessions)
        return true
    }

    /// The sessions sharing control (empty when nobody has it).
    var controllingSessions: Set<UInt64> { control?.sessions ?? [] }

    private func mayControl(_ controller: NoisePublicKey) -> Bool { control == nil || control?.controller == controller }

    /// The session ended (or its set-up failed): its slot is free, and control is once the
    /// last of its controller's controlling sessions ended.
    mutating func closeSession(_ id: UInt64, controller: NoisePublicKey) {
        sessionsByController[controller]?.remove(id)
        if sessionsByController[controller]?.isEmpty == true { sessionsByController[controller] = nil }
        if var current = control, current.sessions.remove(id) != nil {
            control = current.sessions.isEmpty ? nil : current
        }
    }

    func sessionCount(controller: NoisePublicKey) -> Int { sessionsByController[controller]?.count ?? 0 }

    private func decrement(_ counts: inout [AdmissionSource: Int], _ key: AdmissionSource) {
        let left = counts[key, default: 0] - 1
        counts[key] = left > 0 ? left : nil
    }
}
