import PropertyBased
import Testing
import ZRCProtocol
@testable import ZRCHostKit

/// The host's capacity rules, directly: idle connections never take handshake slots, one source
/// cannot take them all, random early drop as they fill, sessions per controller, control.
@Suite struct AdmissionLedgerTests {
    static func key(_ fill: UInt8) -> NoisePublicKey { try! NoisePublicKey(bytes: [UInt8](repeating: fill, count: 32)) }

    @Test func idleConnectionsAreCappedPerSourceAndNeverTakeHandshakeSlots() {
        var ledger = AdmissionLedger()
        for _ in 0..<32 {
            let opened = ledger.connectionOpened(source: "192.0.2.7")
            #expect(opened == nil)
        }
        let oneTooMany = ledger.connectionOpened(source: "192.0.2.7")
        #expect(oneTooMany == .tooManyConnectionsFromSource)
        #expect(ledger.handshakes == 0, "connected but silent: no slot")
        let otherSource = ledger.connectionOpened(source: "198.51.100.1")
        #expect(otherSource == nil, "another source is unaffected")
        let otherSlot = ledger.connectionIdentified(source: "198.51.100.1", random: 0.99)
        #expect(otherSlot == nil)
        #expect(ledger.handshakes == 1)
        ledger.connectionClosed(source: "192.0.2.7")
        let reopened = ledger.connectionOpened(source: "192.0.2.7")
        #expect(reopened == nil, "a closed one frees its place")
    }

    @Test func oneSourceGetsAtMostItsShareOfHandshakeSlots() {
        var ledger = AdmissionLedger()
        var granted = 0
        for _ in 0..<20 {
            _ = ledger.connectionOpened(source: "192.0.2.7")
            if ledger.connectionIdentified(source: "192.0.2.7", random: 0.99) == nil { granted += 1 }
        }
        #expect(granted == 8)
        #expect(ledger.unidentifiedConnections == 0, "identified connections leave the unidentified pool either way")
        _ = ledger.connectionOpened(source: "198.51.100.1")
        let otherSourceSlot = ledger.connectionIdentified(source: "198.51.100.1", random: 0.99)
        #expect(otherSourceSlot == nil)
        ledger.handshakeEnded(source: "192.0.2.7")
        _ = ledger.connectionOpened(source: "192.0.2.7")
        let freedSlot = ledger.connectionIdentified(source: "192.0.2.7", random: 0.99)
        #expect(freedSlot == nil, "a finished handshake frees its slot")
    }

    @Test func slotsFillWithRandomEarlyDropAndNeverOverflow() async {
        await propertyCheck(count: 200, input: Gen.double(in: 0..<1).array(of: 1...400)) { randoms in
            var ledger = AdmissionLedger()
            var drops = 0
            for (index, random) in randoms.enumerated() {
                let source = "10.0.\(index / 250).\(index % 250)"
                _ = ledger.connectionOpened(source: source)
                switch ledger.connectionIdentified(source: source, random: random) {
                case nil: break
                case .earlyDrop:
                    drops += 1
                    #expect(Double(ledger.handshakes) >= 48, "early drop only from 75% full")
                case .tooManyHandshakes: #expect(ledger.handshakes == 64)
                case let other: Issue.record("unexpected \(String(describing: other))")
                }
                #expect(ledger.handshakes <= 64)
            }
            if randoms.count < 48 { #expect(drops == 0) }
        }
    }

    @Test func aControllerHoldsAtMostFourSessions() throws {
        var ledger = AdmissionLedger()
        let ids = try (0..<4).map { _ in try ledger.openSession(controller: Self.key(1)).get() }
        let fifth = ledger.openSession(controller: Self.key(1))
        #expect(throws: AdmissionLedger.Refusal.tooManySessions) { try fifth.get() }
        let other = ledger.openSession(controller: Self.key(2))
        #expect((try? other.get()) != nil, "other controllers are unaffected")
        ledger.closeSession(ids[0], controller: Self.key(1))
        let again = ledger.openSession(controller: Self.key(1))
        #expect((try? again.get()) != nil)
    }

    @Test func controlIsClaimedByTheFirstHelloNotTheFirstHandshake() {
        var ledger = AdmissionLedger()
        let (first, second) = (Self.key(1), Self.key(2))
        #expect(ledger.grant(controller: first, requestedViewOnly: false, policy: .viewOnly) == [], "nobody in control: control is offered")
        #expect(ledger.grant(controller: second, requestedViewOnly: false, policy: .viewOnly) == [], "offered again: nothing was taken yet")
        let firstClaim = ledger.claimControl(session: 2, controller: second)
        #expect(firstClaim)
        let later = ledger.claimControl(session: 1, controller: first)
        #expect(!later, "the later hello finds control taken")
        #expect(ledger.grant(controller: first, requestedViewOnly: false, policy: .viewOnly) == .viewOnly)
        #expect(ledger.grant(controller: first, requestedViewOnly: false, policy: .refuse) == nil)
        #expect(ledger.grant(controller: first, requestedViewOnly: true, policy: .refuse) == .viewOnly)
        ledger.closeSession(2, controller: second)
        #expect(ledger.controllingSessions.isEmpty)
    }

    @Test func sessionsOfTheControllerInControlShareIt() {
        var ledger = AdmissionLedger()
        let (owner, other) = (Self.key(1), Self.key(2))
        let viewer = ledger.claimControl(session: 1, controller: owner)
        #expect(viewer)
        #expect(ledger.grant(controller: owner, requestedViewOnly: false, policy: .refuse) == [], "the same controller is not refused")
        let script = ledger.claimControl(session: 2, controller: owner)
        #expect(script, "a second session of the controller in control shares control")
        let intruder = ledger.claimControl(session: 3, controller: other)
        #expect(!intruder)
        #expect(ledger.grant(controller: other, requestedViewOnly: false, policy: .viewOnly) == .viewOnly)
        ledger.closeSession(1, controller: owner)
        #expect(ledger.controllingSessions == [2], "control stays while one of the controller's sessions holds it")
        #expect(ledger.grant(controller: other, requestedViewOnly: false, policy: .refuse) == nil)
        ledger.closeSession(2, controller: owner)
        #expect(ledger.controllingSessions.isEmpty)
        let now = ledger.claimControl(session: 3, controller: other)
        #expect(now, "once the last of them ends, control is free for others")
    }

    @Test func refusalsAreLoggedOnceThenSummarised() {
        var log = RefusalLog()
        let second: UInt64 = 1_000_000
        let first = log.refused(source: "192.0.2.7", reason: "too many", nowMicros: 0)
        #expect(first == ["too many (connection from 192.0.2.7)"])
        for step in 1...8380 {
            let lines = log.refused(source: "192.0.2.7", reason: "too many", nowMicros: UInt64(step))
            #expect(lines.isEmpty)
        }
        let beforeWindowEnds = log.flush(nowMicros: 29 * second)
        #expect(beforeWindowEnds.isEmpty)
        let summary = log.flush(nowMicros: 30 * second)
        #expect(summary == ["too many — 8380 more connections from 192.0.2.7 in the last 30 s"])
        let afterSummary = log.flush(nowMicros: 90 * second)
        #expect(afterSummary.isEmpty)
    }

    @Test func refusalLogMemoryIsBoundedAcrossManySources() {
        var log = RefusalLog()
        var lines = 0
        for index in 0..<5000 { lines += log.refused(source: "10.\(index / 65536).\(index / 256 % 256).\(index % 256)", reason: "r", nowMicros: 1).count }
        #expect(lines == RefusalLog.maximumSources + 1, "one line per source up to the cap, then one for the rest")
        let summary = log.flush(nowMicros: RefusalLog.windowMicros + 1)
        #expect(summary.count == 1, "the rest summarised together")
    }
}
