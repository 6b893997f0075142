import Foundation
import Logging
import ZRCProtocol
import ZRCStorage

/// The host's open pairing codes: each with its guess-limiting gate (`CodePairingGate`), the
/// meeting points where controllers find it (`CodePairingMeeting`), and its status for the
/// command that showed it. Runs from the LAN and from the brokers come here alike.
///
/// Each code has an ID of its own (never reused), which its meeting points quote: a code that
/// ended while a message was on its way is never confused with a newer one at the same locator.
/// Every decision is re-checked after each suspension point, since the actor may have changed
/// meanwhile (a cancel, a sweep, another open).
actor CodePairingDesk {
    /// Codes open at once: each has meeting points, and a person reads each out.
    static let maximumOpenCodes = 4
    /// Broker runs tracked per code (answered, awaiting their confirmation): a flood of starts is
    /// refused past this, not remembered.
    static let maximumTrackedRuns = 64
    /// A broker run answered this long ago without a confirmation is abandoned (it stays counted).
    static let runConfirmationSeconds: UInt64 = 30
    /// A code nobody asked about for this long has lost its command (Ctrl+C, a closed terminal).
    static let unwatchedLimitSeconds: UInt64 = 15
    /// How long a paired or ended code's status waits for the command's next look.
    static let finishedKeptSeconds: UInt64 = 300
    /// How long the derived invite waits for the controller's pairing handshake after the code
    /// was proven (it may have to go through the rendezvous and ICE).
    static let handshakeWindowSeconds: UInt64 = 120

    struct Entry {
        let code: PairingCode
        let expiresAt: UInt64
        let temporary: Bool
        var gate: CodePairingGate
        var status: CodeStatus
        /// Broker runs the host answered: run → (run number, when answered).
        var brokerRuns: [[UInt8]: (number: UInt64, answeredAt: UInt64)] = [:]
        var lastWatched: UInt64
        var meeting: Task<Void, Never>?
        /// The controller key CPace authenticated and when, once proven.
        var proven: (key: NoisePublicKey, at: UInt64)?
    }

    private let server: HostServer
    private let group: any CPaceGroup
    let logger: Logger
    var entries: [UInt64: Entry] = [:]
    private var nextID: UInt64 = 1
    private var nextRun: UInt64 = 1
    var sweeper: Task<Void, Never>?

    init(server: HostServer, group: any CPaceGroup, logger: Logger) {
        self.server = server
        self.group = group
        self.logger = logger
    }

    var now: UInt64 { server.configuration.unixSeconds }
    private var nowMicros: UInt64 { server.configuration.unixMicros() }

    private func id(ofLocator locator: Int) -> UInt64? { entries.first { $0.value.code.locator == locator }?.key }

    private var openCount: Int {
        entries.values.count { entry in
            switch entry.status {
            case .waiting, .proven: true
            case .paired, .ended: false
            }
        }
    }

    /// Opens a code for `lifetime` seconds at a locator no code here uses, nor (as far as the
    /// brokers tell) another host.
    func open(lifetimeSeconds: Int, temporary: Bool, host: HostPort?,
              hostAD: @Sendable (UInt64) async throws -> HostPairingAD) async -> HostControlResponse {
        sweep()
        guard openCount < Self.maximumOpenCodes else {
            return .failure(message: "\(Self.maximumOpenCodes) codes are open already; wait for one to pair or expire")
        }
        let expiresAt = now + UInt64(lifetimeSeconds)
        let ad: HostPairingAD
        do {
            ad = try await hostAD(expiresAt + Self.handshakeWindowSeconds)
        } catch {
            return .failure(message: "could not describe this host for pairing: \(error)")
        }
        var refused: Set<Int> = []
        for _ in 0..<8 {
            // Checked again after every suspension: other opens may have run meanwhile.
            guard openCount < Self.maximumOpenCodes else {
                return .failure(message: "\(Self.maximumOpenCodes) codes are open already; wait for one to pair or expire")
            }
            let taken = Set(entries.values.map(\.code.locator)).union(refused)
            let code = PairingCode.generate(randomBelow: Self.randomBelow(skipping: taken))
            guard !taken.contains(code.locator) else { continue }
            let sid = server.configuration.randomSecret(PairingMeetingMessage.sidLength).copyBytes()
            let id = nextID
            nextID += 1
            let meeting = CodePairingMeeting(desk: self, id: id, code: code, sid: sid, expiresAt: expiresAt, group: group,
                                             configuration: server.configuration, crypto: server.crypto, host: host, logger: logger)
            // Reserved (with no suspension since the check) before the brokers are asked.
            entries[id] = Entry(code: code, expiresAt: expiresAt, temporary: temporary,
                                gate: CodePairingGate(code: code, ci: code.channelIdentifier, sid: sid, hostAD: ad.bytes,
                                                      expiresAtMicros: expiresAt * 1_000_000),
                                status: .waiting(wrongTries: 0), lastWatched: now)
            let points: [String]
            do {
                points = try await meeting.claim()
            } catch {
                entries[id] = nil
                if case .locatorTaken = error {
                    refused.insert(code.locator)
                    continue
                }
                return .failure(message: error.description)
            }
            // Cancelled or swept while the brokers were asked: take the announcements back.
            guard entries[id] != nil else {
                await meeting.withdraw()
                return .failure(message: "the code was withdrawn before it was shown")
            }
            entries[id]?.lastWatched = now
            entries[id]?.meeting = Task { await meeting.serve() }
            startSweeping()
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
        guard let id = id(ofLocator: locator), var entry = entries[id] else {
            return .failure(message: "no pairing code with locator \(locator) is open")
        }
        entry.lastWatched = now
        entries[id] = entry
        switch entry.status {
        case .paired, .ended: end(id)
        case .waiting, .proven: break
        }
        return .codeStatus(entry.status)
    }

    func cancel(locator: Int) -> HostControlResponse {
        guard let id = id(ofLocator: locator) else { return .failure(message: "no pairing code with locator \(locator) is open") }
        finish(id, .ended(reason: "cancelled"))
        end(id)
        return .codeStatus(.ended(reason: "cancelled"))
    }

    /// A new run number (each LAN connection, each answered broker run).
    func newRun() -> UInt64 {
        defer { nextRun += 1 }
        return nextRun
    }

    /// A controller's CPace message: the host's answer, or an outcome refusing it. `run` is the
    /// LAN connection's run number, or nil for a broker run named by `brokerRun`.
    func start(id: UInt64, run: UInt64?, brokerRun: [UInt8]? = nil, message: [UInt8]) -> PairingMeetingMessage? {
        guard var entry = entries[id] else { return .outcome(.refused, reason: "this code is no longer open") }
        let number: UInt64
        if let run {
            number = run
        } else {
            guard let brokerRun, entry.brokerRuns[brokerRun] == nil else { return nil }  // a repeat: already answered
            // Answered runs only are tracked (at most three are, plus refusals never kept).
            guard entry.brokerRuns.count < Self.maximumTrackedRuns else { return nil }
            number = newRun()
        }
        let answer = entry.gate.answer(run: number, message: message, now: nowMicros, group: group)
        switch answer {
        case .respond(let bytes):
            if let brokerRun { entry.brokerRuns[brokerRun] = (number, now) }
            entries[id] = entry
            return .answer(bytes)
        case .refused(let reason):
            entries[id] = entry
            return .outcome(.refused, reason: reason)
        }
    }

    /// The run number of an answered broker run (nil: never answered here, so nothing to confirm).
    func answeredRun(id: UInt64, brokerRun: [UInt8]) -> UInt64? { entries[id]?.brokerRuns[brokerRun]?.number }

    /// A controller's confirmation: paired (the derived invite now waits for its handshake), or
    /// a wrong code.
    func confirm(id: UInt64, run: UInt64, tag: [UInt8]) async -> PairingMeetingMessage {
        guard var entry = entries[id] else { return .outcome(.refused, reason: "this code is no longer open") }
        let result = entry.gate.confirm(run: run, tag: tag, now: nowMicros)
        entry.brokerRuns = entry.brokerRuns.filter { $0.value.number != run }
        entries[id] = entry
        switch result {
        case .paired(let controllerAD, let keys):
            guard let ad = try? ControllerPairingAD(parsing: controllerAD) else {
                // The gate answers only runs whose AD parses; refuse rather than trap.
                finish(id, .ended(reason: "the controller's description is malformed"))
                return .outcome(.refused, reason: "the controller's description is malformed")
            }
            let name = DeviceName.problem(with: ad.name) == nil ? ad.name : "controller"
            let fingerprint = KeyDerivations.fingerprint(of: ad.controllerKey, crypto: server.crypto)
            entries[id]?.proven = (ad.controllerKey, now)
            // Nobody else can use this code now: its meeting points go once the outcome is out
            // (`outcomeDelivered`); cancelling them here would cut that very answer off.
            entries[id]?.status = .proven(controllerName: name, fingerprint: fingerprint)
            await server.expectCodePairing(keys: keys, controllerKey: ad.controllerKey, temporary: entry.temporary,
                                           until: now + Self.handshakeWindowSeconds)
            // Cancelled (Ctrl+C) while the invite was installed: the pairing must not go on.
            guard entries[id] != nil else {
                await server.withdrawCodePairing(keys: keys, controllerKey: ad.controllerKey)
                return .outcome(.refused, reason: "the host withdrew the code")
            }
            logger.notice("pairing code proven by \(TerminalSafeText.sanitized(name)) (\(fingerprint)); waiting for its pairing handshake")
            return .outcome(.paired, reason: "")
        case .wrongCode(let left):
            logger.notice("someone tried a wrong pairing code (\(left) tr\(left == 1 ? "y" : "ies") left)")
            noteWrongTries(id)
            return .outcome(.wrongCode, reason: "wrong code")
        case .refused(let reason):
            return .outcome(.refused, reason: reason)
        }
    }

    /// A meeting point sent an outcome: when the code is no longer open, its meeting points go.
    func outcomeDelivered(id: UInt64) {
        guard let entry = entries[id] else { return }
        switch entry.status {
        case .waiting: break
        case .proven, .paired, .ended:
            entries[id]?.meeting?.cancel()
            entries[id]?.meeting = nil
        }
    }

    /// A run ended without its confirmation: it stays counted.
    func abandon(id: UInt64, run: UInt64) {
        guard var entry = entries[id] else { return }
        entry.gate.abandon(run: run, now: nowMicros)
        entries[id] = entry
        noteWrongTries(id)
        // No answer is owed for an abandoned run: an ended code's meeting points go now.
        outcomeDelivered(id: id)
    }

    /// The status after a wrong or abandoned try; the code ends at the third.
    private func noteWrongTries(_ id: UInt64) {
        guard let entry = entries[id], case .waiting = entry.status else { return }
        switch entry.gate.state {
        case .ended(.tooManyWrongCodes):
            logger.warning("the pairing code ended after three wrong tries; make a new one with `zrc-host pair --code`")
            // The meeting points go once the third try's answer is out (`outcomeDelivered`).
            entries[id]?.status = .ended(reason: "someone tried three wrong codes, so this code ended; make a new one when you are ready")
        case .waiting(let counted):
            // Runs still awaiting their confirmation are not wrong yet.
            let pending = entry.brokerRuns.count
            entries[id]?.status = .waiting(wrongTries: max(0, counted - pending))
        case .paired, .ended:
            break
        }
    }

    /// The server authorized `key` through a pairing handshake: the code that proved it is done.
    func controllerPaired(_ key: NoisePublicKey, name: String) {
        for (id, entry) in entries where entry.proven?.key == key {
            finish(id, .paired(controllerName: name, fingerprint: KeyDerivations.fingerprint(of: key, crypto: server.crypto)))
        }
    }


}
