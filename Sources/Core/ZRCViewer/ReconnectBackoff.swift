/// When the viewer tries again after losing its host: 2 s, 4 s, 8 s, then every 10 s, starting
/// over once a session is up again.
public struct ReconnectBackoff: Sendable, Equatable {
    public static let schedule: [Duration] = [.seconds(2), .seconds(4), .seconds(8)]
    public static let steady: Duration = .seconds(10)

    public private(set) var failures = 0

    public init() {}

    /// The wait before the next attempt, counting this failure.
    public mutating func nextDelay() -> Duration {
        defer { failures += 1 }
        return failures < Self.schedule.count ? Self.schedule[failures] : Self.steady
    }

    /// A session is up: the next loss starts the schedule from the beginning.
    public mutating func succeeded() {
        failures = 0
    }
}
