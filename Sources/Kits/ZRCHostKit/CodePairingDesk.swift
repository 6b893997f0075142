import Foundation
import Logging
import ZRCProtocol
import ZRCStorage

/// The host's open pairing codes: each with its guess-limiting gate (`CodePairingGate`), the
/// meeting points where controllers find it (`CodePairingMeeting`), and its status for the
/// command that showed it. Runs from the LAN and from the brokers come here alike.
actor CodePairingDesk {
    /// Codes open at once: each has meeting points, and a person reads each out.
    static let maximumOpenCodes = 4
    /// Broker runs tracked per code: a flood of starts is refused past this, not remembered.
    static let maximumTrackedRuns = 64
    /// A code nobody asked about for this long has lost its command (Ctrl+C, a closed terminal).
    static let unwatchedLimitSeconds: UInt64 = 15
    /// How long a paired or ended code's status waits for the command's next look.
    static let finishedKeptSeconds: UInt64 = 300
    /// How long the derived invite waits for the controller's pairing handshake after the code
    /// was proven (it may have to go through the rendezvous and ICE).
    static let handshakeWindowSeconds: UInt64 = 120

    private struct Entry {
        let code: PairingCode
        let sid: [UInt8]
        let expiresAt: UInt64
        let temporary: Bool
        var gate: CodePairingGate
        var status: CodeStatus
        var brokerRuns: [[UInt8]: UInt64] = [:]
        var lastWatched: UInt64
        var meeting: Task<Void, Never>?
        /// The controller key CPace authenticated, once proven.
        var controllerKey: NoisePublicKey?
    }

    private let server: HostServer
    private let group: any CPaceGroup
    private let logger: Logger
    private var entries: [Int: Entry] = [:]
    private var nextRun: UInt64 = 1

    init(server: HostServer, group: any CPaceGroup, logger: Logger) {
        self.server = server
        self.group = group
        self.logger = logger
    }

    private var now: UInt64 { server.configuration.unixSeconds }
    private var nowMicros: UInt64 { server.configuration.unixMicros() }

    /// Opens a code for `lifetime` seconds at a locator no open code here uses, nor (as far as
    /// the brokers tell) another host.
    func open(lifetimeSeconds: Int, temporary: Bool, hostAD: @Sendable (UInt64) async throws -> HostPairingAD) async -> HostControlResponse {
        sweep()
        let open = entries.values.count { entry in
            switch entry.status {
            case .waiting, .proven: true
            case .paired, .ended: false
            }
        }
        guard open < Self.maximumOpenCodes else {
            return .failure(message: "\(Self.maximumOpenCodes) codes are open already; wait for one to pair or expire")
        }
        let expiresAt = now + UInt64(lifetimeSeconds)
        let ad: HostPairingAD
        do {
            ad = try await hostAD(expiresAt + Self.handshakeWindowSeconds)
        } catch {
            return .failure(message: "could not describe this host for pairing: \(error)")
        }
        var taken = Set(entries.keys)
        for _ in 0..<8 {
            let code = PairingCode.generate(randomBelow: Self.randomBelow(skipping: taken))
            guard entries[code.locator] == nil else { continue }
            let sid = server.configuration.randomSecret(PairingMeetingMessage.sidLength).copyBytes()
            let meeting = CodePairingMeeting(desk: self, code: code, sid: sid, expiresAt: expiresAt, group: group,
                                             configuration: server.configuration, crypto: server.crypto,
                                             host: await server.boundAddress, logger: logger)
            // Reserved before the brokers are asked, so a second request picks another locator.
            entries[code.locator] = Entry(code: code, sid: sid, expiresAt: expiresAt, temporary: temporary,
                                          gate: CodePairingGate(code: code, ci: code.channelIdentifier, sid: sid, hostAD: ad.bytes,
                                                                expiresAtMicros: expiresAt * 1_000_000),
                                          status: .waiting(wrongTries: 0), lastWatched: now)
            let points: [String]
            do {
                points = try await meeting.claim()
            } catch {
                entries[code.locator] = nil
                if case .locatorTaken = error {
                    taken.insert(code.locator)
                    continue
                }
                return .failure(message: error.description)
            }
            entries[code.locator]?.meeting = Task { await meeting.serve() }
            logger.notice("pairing code open until \(Date(timeIntervalSince1970: TimeInterval(expiresAt)).formatted(date: .omitted, time: .standard)) at \(points.joined(separator: ", "))")
            return .code(CodeSummary(code: code.text, locator: code.locator, expiresAt: Date(timeIntervalSince1970: TimeInterval(expiresAt)),
                                     hostName: server.configuration.hostName, hostFingerprint: server.fingerprint, meetingPoints: points))
        }
        return .failure(message: "could not find a free locator for a code; try again")
    }

    private static func randomBelow(skipping taken: Set<Int>) -> (Int) -> Int {
        { bound in
            var generator = SystemRandomNumberGenerator()
            // The locator's range is 100 wide: redraw past the taken ones (at most a few).
            for _ in 0..<64 {
                let value = Int.random(in: 0..<bound, using: &generator)
                if bound != 100 || !taken.contains(value) { return value }
            }
            return Int.random(in: 0..<bound, using: &generator)
        }
    }

    func status(locator: Int) -> HostControlResponse {
        sweep()
        guard var entry = entries[locator] else { return .failure(message: "no pairing code with locator \(locator) is open") }
        entry.lastWatched = now
        entries[locator] = entry
        switch entry.status {
        case .paired, .ended: end(locator)
        case .waiting, .proven: break
        }
        return .codeStatus(entry.status)
    }

    func cancel(locator: Int) -> HostControlResponse {
        guard entries[locator] != nil else { return .failure(message: "no pairing code with locator \(locator) is open") }
        finish(locator, .ended(reason: "cancelled"))
        end(locator)
        return .codeStatus(.ended(reason: "cancelled"))
    }

    /// A new run number for a LAN connection.
    func newRun() -> UInt64 {
        defer { nextRun += 1 }
        return nextRun
    }

    /// The run number for a broker run, nil when too many are tracked.
    func run(forBrokerRun run: [UInt8], locator: Int) -> UInt64? {
        guard var entry = entries[locator] else { return nil }
        if let known = entry.brokerRuns[run] { return known }
        guard entry.brokerRuns.count < Self.maximumTrackedRuns else { return nil }
        let number = newRun()
        entry.brokerRuns[run] = number
        entries[locator] = entry
        return number
    }

    /// A controller's CPace message: the host's answer, or an outcome refusing it.
    func start(locator: Int, run: UInt64, message: [UInt8]) -> PairingMeetingMessage {
        guard var entry = entries[locator] else { return .outcome(.refused, reason: "this code is no longer open") }
        let answer = entry.gate.answer(run: run, message: message, now: nowMicros, group: group)
        entries[locator] = entry
        switch answer {
        case .respond(let bytes): return .answer(bytes)
        case .refused(let reason): return .outcome(.refused, reason: reason)
        }
    }

    /// A controller's confirmation: paired (the derived invite now waits for its handshake), or
    /// a wrong code.
    func confirm(locator: Int, run: UInt64, tag: [UInt8]) async -> PairingMeetingMessage {
        guard var entry = entries[locator] else { return .outcome(.refused, reason: "this code is no longer open") }
        let result = entry.gate.confirm(run: run, tag: tag, now: nowMicros)
        entries[locator] = entry
        switch result {
        case .paired(let controllerAD, let keys):
            guard let ad = try? ControllerPairingAD(parsing: controllerAD) else {
                // The gate parsed it already; unreachable, but refuse rather than trap.
                return .outcome(.refused, reason: "the controller's description is malformed")
            }
            let name = DeviceName.problem(with: ad.name) == nil ? ad.name : "controller"
            let fingerprint = KeyDerivations.fingerprint(of: ad.controllerKey, crypto: server.crypto)
            entries[locator]?.controllerKey = ad.controllerKey
            entries[locator]?.status = .proven(controllerName: name, fingerprint: fingerprint)
            await server.expectCodePairing(keys: keys, controllerKey: ad.controllerKey, temporary: entry.temporary,
                                           until: now + Self.handshakeWindowSeconds)
            logger.notice("pairing code proven by \(TerminalSafeText.sanitized(name)) (\(fingerprint)); waiting for its pairing handshake")
            return .outcome(.paired, reason: "")
        case .wrongCode(let left):
            logger.notice("someone tried a wrong pairing code (\(left) tr\(left == 1 ? "y" : "ies") left)")
            if case .ended(.tooManyWrongCodes) = entries[locator]?.gate.state {
                logger.warning("the pairing code ended after three wrong tries; make a new one with `zrc-host pair --code`")
                finish(locator, .ended(reason: "someone tried three wrong codes, so this code ended; make a new one when you are ready"))
            } else {
                entries[locator]?.status = .waiting(wrongTries: CodePairingGate.maximumGuesses - left)
            }
            return .outcome(.wrongCode, reason: "wrong code")
        case .refused(let reason):
            return .outcome(.refused, reason: reason)
        }
    }

    /// A run ended without its confirmation: it stays counted.
    func abandon(locator: Int, run: UInt64) {
        guard var entry = entries[locator] else { return }
        entry.gate.abandon(run: run, now: nowMicros)
        entries[locator] = entry
        if case .ended(.tooManyWrongCodes) = entry.gate.state, case .waiting = entry.status {
            logger.warning("the pairing code ended after three unconfirmed tries; make a new one with `zrc-host pair --code`")
            finish(locator, .ended(reason: "someone tried three wrong codes, so this code ended; make a new one when you are ready"))
        }
    }

    /// The server authorized `key` through a pairing handshake: the code that proved it is done.
    func controllerPaired(_ key: NoisePublicKey, name: String) {
        for (locator, entry) in entries where entry.controllerKey == key {
            finish(locator, .paired(controllerName: name, fingerprint: KeyDerivations.fingerprint(of: key, crypto: server.crypto)))
        }
    }

    /// Whether a code with this locator is open (for the meetings' loops).
    func isOpen(_ locator: Int) -> Bool {
        sweep()
        guard let entry = entries[locator], case .waiting = entry.status else { return false }
        return true
    }

    /// Ends codes past their expiry (or their handshake window) and codes nobody watches.
    func sweep() {
        let now = now
        for (locator, entry) in entries {
            switch entry.status {
            case .waiting:
                if now >= entry.expiresAt { finish(locator, .ended(reason: "the code expired")) }
            case .proven:
                if now >= entry.expiresAt + Self.handshakeWindowSeconds {
                    finish(locator, .ended(reason: "the controller proved the code but did not complete its pairing in time"))
                }
            case .paired, .ended:
                break
            }
            guard let current = entries[locator] else { continue }
            switch current.status {
            case .waiting, .proven:
                if now >= current.lastWatched + Self.unwatchedLimitSeconds {
                    logger.notice("pairing code withdrawn: the command that showed it has gone")
                    end(locator)
                }
            case .paired, .ended:
                // Kept for the command's next look, but not for ever.
                if now >= current.lastWatched + Self.finishedKeptSeconds { end(locator) }
            }
        }
    }

    private func finish(_ locator: Int, _ status: CodeStatus) {
        guard var entry = entries[locator] else { return }
        entry.status = status
        // Its meeting points go at once: nobody else can use this code now.
        entry.meeting?.cancel()
        entry.meeting = nil
        entries[locator] = entry
    }

    private func end(_ locator: Int) {
        entries[locator]?.meeting?.cancel()
        entries[locator] = nil
    }

    /// Ends every code (the server stops).
    func closeAll() {
        for locator in entries.keys { end(locator) }
    }
}
