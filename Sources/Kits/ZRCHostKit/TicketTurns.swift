/// Turns taken in the order tickets were drawn: an actor draws a ticket where the order is decided
/// (synchronously, so no other call can come between), and later, across any number of awaits,
/// waits for its turn. `SessionDriver` sends download chunks this way: two of its calls can
/// interleave at an await (a reentrant actor), and chunks planned first must reach the
/// connection first — the receiver takes a file's bytes only in order.
///
/// Every ticket drawn must be finished (`finish`), or the tickets after it wait for ever.
struct TicketTurns {
    private var next: UInt64 = 0
    private var serving: UInt64 = 0
    private var waiting: [UInt64: CheckedContinuation<Void, Never>] = [:]

    /// A ticket: the next turn after every ticket drawn before it.
    mutating func draw() -> UInt64 {
        defer { next += 1 }
        return next
    }

    /// Tickets drawn so far.
    var drawnCount: UInt64 { next }

    /// Whether `ticket`'s turn has come.
    func isServing(_ ticket: UInt64) -> Bool { ticket == serving }

    /// Parks `waiter` until `ticket`'s turn (the caller checked it has not come yet).
    mutating func park(_ ticket: UInt64, _ waiter: CheckedContinuation<Void, Never>) {
        precondition(ticket > serving && waiting[ticket] == nil, "a ticket waits once, before its turn")
        waiting[ticket] = waiter
    }

    /// The turn being served is over: the next ticket's waiter, if it is parked, to resume.
    mutating func finish() -> CheckedContinuation<Void, Never>? {
        serving += 1
        return waiting.removeValue(forKey: serving)
    }
}
