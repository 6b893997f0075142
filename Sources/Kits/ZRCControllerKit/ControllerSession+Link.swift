import ZRCNetworking

/// What the session's path carries, for status lines and benchmarks.
extension ControllerSession {
    /// The newest keepalive round trip on this session's path; nil until one was measured.
    public func roundTrip() async -> Duration? {
        guard let micros = await connection?.roundTripMicros else { return nil }
        return .microseconds(Int64(micros))
    }

    /// Encrypted bytes sent to the host so far (0 once the session ended).
    public func sentBytes() async -> Int {
        await connection?.sentBytes ?? 0
    }

    /// Encrypted bytes received from the host so far (for bandwidth displays).
    public func receivedBytes() async -> Int {
        if let connection { receivedTotal = await connection.receivedBytes }
        return receivedTotal
    }
}
