import PropertyBased
import Testing
import ZRCProtocol
@testable import ZRCHostKit

/// The host's capacity rules, directly: idle connections never take handshake slots, one source
/// cannot take them all, random early drop as they fill, sessions per controller, control.
@Suite struct AdmissionLedgerTests {
    static func key(_ fill: UInt8) -> NoisePublicKey { try! NoisePublicKey(bytes: [UInt8](repeating: fill, count: 32)) }

    /// Opens and identifies a connection from `source`: the pool of its slot, or the refusal.
    static func handshake(_ ledger: inout AdmissionLedger, _ source: AdmissionSource, random: Double = 0.99, now: UInt64 = 0)
        -> Result<AdmissionLedger.SlotPool, AdmissionLedger.Refusal> {
        if let refused = ledger.connectionOpened(source: source, nowMicros: now) { return .failure(refused) }
        return ledger.connectionIdentified(source: source, random: random, nowMicros: now)
    }

    static func granted(_ result: Result<AdmissionLedger.SlotPool, AdmissionLedger.Refusal>) -> Bool {
        if case .success = result { true } else { false }
    }

    @Test func idleConnectionsAreCappedPerSourceAndNeverTakeHandshakeSlots() {
        var ledger = AdmissionLedger()
        for _ in 0..<32 {
            let opened = ledger.connectionOpened(source: "192.0.2.7", nowMicros: 0)
            #expect(opened == nil)
        }
        let oneTooMany = ledger.connectionOpened(source: "192.0.2.7", nowMicros: 0)
        #expect(oneTooMany == .tooManyConnectionsFromSource)
        #expect(ledger.handshakes == 0, "connected but silent: no slot")
        #expect(Self.handshake(&ledger, "198.51.100.1") == .success(.general), "another source is unaffected")
        #expect(ledger.handshakes == 1)
        ledger.connectionClosed(source: "192.0.2.7")
        let reopened = ledger.connectionOpened(source: "192.0.2.7", nowMicros: 0)
        #expect(reopened == nil, "a closed one frees its place")
    }

    @Test func oneSourceGetsAtMostItsShareOfHandshakeSlots() {
        var ledger = AdmissionLedger()
        var granted = 0
        for _ in 0..<20 where Self.granted(Self.handshake(&ledger, "192.0.2.7")) { granted += 1 }
        #expect(granted == 8)
        #expect(ledger.unidentifiedConnections == 0, "identified connections leave the unidentified pool either way")
        #expect(Self.granted(Self.handshake(&ledger, "198.51.100.1")))
        ledger.handshakeEnded(source: "192.0.2.7", pool: .general)
        #expect(Self.granted(Self.handshake(&ledger, "192.0.2.7")), "a finished handshake frees its slot")
    }

    /// IPv6 sources count per /64: one subscriber's whole prefix is one source; IPv4-mapped
    /// addresses count as their IPv4 address.
    @Test(arguments: [("2001:db8:1:2::1", "2001:db8:1:2::ffff:7", true), ("2001:db8:1:2::1", "2001:db8:1:3::1", false),
                      ("::ffff:192.0.2.7", "192.0.2.7", true), ("192.0.2.7", "192.0.2.8", false)])
    func sourcesCountPerIPv4AddressAndIPv6Prefix(_ first: String, _ second: String, same: Bool) {
        #expect((AdmissionSource.address(first) == AdmissionSource.address(second)) == same)
        var ledger = AdmissionLedger()
        for index in 0..<8 { #expect(Self.granted(Self.handshake(&ledger, .address(index % 2 == 0 ? first : second)))) }
        #expect(Self.granted(Self.handshake(&ledger, .address(second))) == !same, "the ninth from one source is refused")
    }

    /// A flood from eight addresses fills every general slot; an address a paired controller
    /// authenticated from still gets one (the reserve), and is never dropped early.
    @Test func recentlyAuthenticatedAddressesKeepSlotsWhenAFloodFillsTheRest() {
        var ledger = AdmissionLedger()
        ledger.sourceAuthenticated("127.0.0.1", nowMicros: 1_000)
        var flood = 0
        for index in 0..<200 where Self.granted(Self.handshake(&ledger, .address("127.0.0.\(2 + index % 8)"), random: 0.99, now: 2_000)) {
            flood += 1
        }
        #expect(flood == 64 && ledger.handshakes == 64, "the flood holds every general slot")
        for _ in 0..<8 { #expect(Self.handshake(&ledger, "127.0.0.1", random: 0, now: 3_000) == .success(.reserved)) }
        #expect(Self.handshake(&ledger, "127.0.0.1", now: 3_000) == .failure(.tooManyHandshakesFromSource), "still at most 8 per source")
        #expect(Self.handshake(&ledger, "198.51.100.9", now: 3_000) == .failure(.tooManyHandshakes), "a stranger gets no reserved slot")
        // The trust lapses.
        let later = 3_000 + AdmissionLimits().trustedSourceLifetimeMicros + 1
        for _ in 0..<8 { ledger.handshakeEnded(source: "127.0.0.1", pool: .reserved) }
        #expect(Self.handshake(&ledger, "127.0.0.1", now: later) == .failure(.tooManyHandshakes))
    }

    @Test func rendezvousStreamsHaveSlotsOfTheirOwn() {
        var ledger = AdmissionLedger()
        for index in 0..<64 { _ = Self.handshake(&ledger, .address("10.0.0.\(index % 250)"), random: 0.99) }
        #expect(ledger.handshakes == 64)
        #expect(Self.handshake(&ledger, .rendezvous("aaaa")) == .success(.rendezvous))
        for _ in 0..<7 { _ = Self.handshake(&ledger, .rendezvous("bbbb")) }
        #expect(Self.handshake(&ledger, .rendezvous("cccc")) == .failure(.tooManyHandshakes), "8 rendezvous slots in all")
        ledger.handshakeEnded(source: .rendezvous("aaaa"), pool: .rendezvous)
        #expect(Self.handshake(&ledger, .rendezvous("cccc")) == .success(.rendezvous))
    }

    /// Addresses remembered as authenticated are bounded: the least recent goes.
    @Test func trustedAddressesAreBounded() {
        var limits = AdmissionLimits()
        limits.maximumTrustedSources = 3
        var ledger = AdmissionLedger(limits: limits)
        for index in 0..<4 { ledger.sourceAuthenticated(.address("192.0.2.\(index)"), nowMicros: UInt64(index)) }
        #expect(!ledger.isTrusted("192.0.2.0", nowMicros: 10))
        #expect(ledger.isTrusted("192.0.2.3", nowMicros: 10))
    }

    @Test func slotsFillWithRandomEarlyDropAndNeverOverflow() async {
        await propertyCheck(count: 200, input: Gen.double(in: 0..<1).array(of: 1...400)) { randoms in
            var ledger = AdmissionLedger()
            var drops = 0
            for (index, random) in randoms.enumerated() {
                let source = "10.0.\(index / 250).\(index % 250)"
                switch Self.handshake(&ledger, .address(source), random: random) {
                case .success: break
                case .failure(.earlyDrop):
                    drops += 1
                    #expect(Double(ledger.handshakes) >= 48, "early drop only from 75% full")
                case .failure(.tooManyHandshakes): #expect(ledger.handshakes == 64)
                case .failure(let other): Issue.record("unexpected \(other)")
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
