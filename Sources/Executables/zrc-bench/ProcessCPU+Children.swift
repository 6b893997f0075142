extension ProcessCPU {
    /// This process's CPU time so far (user and system, all threads), in seconds.
    static func seconds() -> Double {
        let time = now().components
        return Double(time.seconds) + Double(time.attoseconds) / 1e18
    }

    /// Asks a bench child (which answers `cpu SECONDS` to a `cpu` line) for its CPU time.
    static func of(_ child: BenchChild) async throws -> Double {
        child.send(line: "cpu")
        while true {
            let line = try await child.nextLine(timeout: .seconds(60))
            if line.hasPrefix("cpu "), let value = Double(line.dropFirst(4)) { return value }
        }
    }
}
