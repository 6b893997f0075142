import Logging
import ZRCProtocol

/// The desk's clock work: codes end at their expiry (or handshake window), broker runs never
/// confirmed are abandoned, codes nobody watches are forgotten — once a second while any is kept,
/// so none of it waits for somebody to ask.
extension CodePairingDesk {
    /// Codes end on time even when nobody asks: once a second while any is kept.
    func startSweeping() {
        guard sweeper == nil else { return }
        sweeper = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                guard await self.sweepAndContinue() else { return }
            }
        }
    }

    private func sweepAndContinue() -> Bool {
        sweep()
        guard !entries.isEmpty else {
            sweeper = nil
            return false
        }
        return true
    }

    /// Ends codes past their expiry (or their handshake window), abandons broker runs never
    /// confirmed, and forgets codes nobody watches.
    func sweep() {
        let now = now
        for (id, entry) in entries {
            switch entry.status {
            case .waiting:
                if now >= entry.expiresAt {
                    finish(id, .ended(reason: "the code expired"))
                } else {
                    for (_, run) in entry.brokerRuns where now >= run.answeredAt + Self.runConfirmationSeconds {
                        // Read, then written: one expression doing both is an exclusivity violation.
                        let remaining = entries[id]?.brokerRuns.filter { $0.value.number != run.number } ?? [:]
                        entries[id]?.brokerRuns = remaining
                        abandon(id: id, run: run.number)
                    }
                }
            case .proven:
                if let proven = entry.proven, now >= proven.at + Self.handshakeWindowSeconds {
                    finish(id, .ended(reason: "the controller proved the code but did not complete its pairing in time"))
                }
            case .paired, .ended:
                break
            }
            guard let current = entries[id] else { continue }
            switch current.status {
            case .waiting, .proven:
                if now >= current.lastWatched + Self.unwatchedLimitSeconds {
                    logger.notice("pairing code withdrawn: the command that showed it has gone")
                    end(id)
                }
            case .paired, .ended:
                if now >= current.lastWatched + Self.finishedKeptSeconds { end(id) }
            }
        }
    }

    func finish(_ id: UInt64, _ status: CodeStatus) {
        guard var entry = entries[id] else { return }
        entry.status = status
        // Its meeting points go at once: nobody else can use this code now.
        entry.meeting?.cancel()
        entry.meeting = nil
        entries[id] = entry
    }

    func end(_ id: UInt64) {
        entries[id]?.meeting?.cancel()
        entries[id] = nil
    }

    /// Ends every code (the server stops).
    func closeAll() {
        for id in entries.keys { end(id) }
        sweeper?.cancel()
        sweeper = nil
    }
}
