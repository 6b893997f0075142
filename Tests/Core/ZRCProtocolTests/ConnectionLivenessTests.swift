import PropertyBased
import Testing
import ZRCProtocol

/// Keepalives, the dead-peer timeout and the close flush on a fake clock: what used to need
/// 20-second waits runs in microseconds, including events that arrive "after now was read".
@Suite struct ConnectionLivenessTests {
    let timings = ConnectionTimings(keepaliveInterval: .seconds(5), deadPeerTimeout: .seconds(20))
    let second: UInt64 = 1_000_000

    @Test func aQuietConnectionPingsAtTheKeepaliveInterval() {
        var liveness = ConnectionLiveness(timings: timings, nowMicros: 1_000)
        #expect(liveness.tick(nowMicros: 1_000 + 5 * second - 1) == [])
        #expect(liveness.tick(nowMicros: 1_000 + 5 * second) == [.sendPing(id: 1, sentAtMicros: 1_000 + 5 * second)])
        // The ping counts as sent: the next one is another interval away.
        #expect(liveness.tick(nowMicros: 1_000 + 6 * second) == [])
        #expect(liveness.tick(nowMicros: 1_000 + 10 * second) == [.sendPing(id: 2, sentAtMicros: 1_000 + 10 * second)])
    }

    @Test func sendingPostponesTheKeepalive() {
        var liveness = ConnectionLiveness(timings: timings, nowMicros: 0)
        liveness.sent(atMicros: 4 * second)
        #expect(liveness.tick(nowMicros: 8 * second) == [])
        #expect(liveness.tick(nowMicros: 9 * second).count == 1)
    }

    @Test func aSilentPeerIsClosedAfterTheTimeoutAndTheSocketGoesAfterTheFlush() {
        var liveness = ConnectionLiveness(timings: timings, nowMicros: 0)
        liveness.sent(atMicros: 20 * second)  // we kept talking; the peer did not
        #expect(liveness.tick(nowMicros: 20 * second) == [])
        #expect(liveness.tick(nowMicros: 20 * second + 1) == [.closeSilentPeer(text: "nothing received for 20.0 seconds")])
        #expect(liveness.state == .closing(abortAtMicros: 20 * second + 1 + ConnectionLiveness.closeFlushMicros))
        #expect(liveness.tick(nowMicros: 21 * second) == [])
        #expect(liveness.tick(nowMicros: 20 * second + 1 + ConnectionLiveness.closeFlushMicros) == [.abort])
        #expect(liveness.state == .closed)
        #expect(liveness.nextDeadlineMicros == nil)
    }

    @Test func hearingFromThePeerKeepsItAlive() {
        var liveness = ConnectionLiveness(timings: timings, nowMicros: 0)
        for step in 1...100 {
            let now = UInt64(step) * 10 * second
            liveness.heard(atMicros: now - second)
            #expect(!liveness.tick(nowMicros: now).contains { if case .closeSilentPeer = $0 { true } else { false } })
        }
    }

    /// The bug behind sessions dropping under full-screen motion: the driver read "now", then an
    /// acknowledgement arrived and was stamped later than that "now". Elapsed time must be zero,
    /// not a wrapped-around 2^64 − x.
    @Test func aRecordHeardAfterNowWasReadIsNotAnAgeOfCenturies() {
        var liveness = ConnectionLiveness(timings: timings, nowMicros: 0)
        let now = 100 * second
        liveness.heard(atMicros: now + 250)
        liveness.sent(atMicros: now + 300)
        #expect(liveness.tick(nowMicros: now) == [])
        #expect(liveness.state != .closed)
        if case .open = liveness.state {} else { Issue.record("a healthy connection was closed: \(liveness.state)") }
    }

    @Test func property_arbitraryInterleavingsNeverCloseAPeerHeardWithinTheTimeout() async {
        let events = Gen.int(in: 0...2).array(of: 1...200)
        await propertyCheck(count: 300, input: events, Gen.uint64(in: 0...(40 * second))) { kinds, start in
            var liveness = ConnectionLiveness(timings: timings, nowMicros: start)
            var clock = start
            var lastHeard = start
            for kind in kinds {
                switch kind {
                case 0:
                    // A record stamped slightly in the future of the next tick's "now".
                    lastHeard = max(lastHeard, clock + 500)
                    liveness.heard(atMicros: clock + 500)
                case 1:
                    liveness.sent(atMicros: clock)
                default:
                    clock += 3 * second
                }
                let actions = liveness.tick(nowMicros: clock)
                let closed = actions.contains { if case .closeSilentPeer = $0 { true } else { false } }
                let silentFor = clock > lastHeard ? clock - lastHeard : 0
                #expect(closed == (silentFor > 20 * second), "closed \(closed) after \(silentFor) µs of silence")
                if closed { return }
            }
        }
    }

    @Test func aPongGivesTheRoundTripButNotFromTheFuture() {
        var liveness = ConnectionLiveness(timings: timings, nowMicros: 0)
        liveness.pongArrived(pingSentAtMicros: 1_000, nowMicros: 1_750)
        #expect(liveness.roundTripMicros == 750)
        liveness.pongArrived(pingSentAtMicros: 9_000, nowMicros: 2_000)
        #expect(liveness.roundTripMicros == 750)
    }

    @Test func closingStopsKeepalivesAndBoundsTheFlush() {
        var liveness = ConnectionLiveness(timings: timings, nowMicros: 0)
        liveness.closing(nowMicros: 3 * second)
        #expect(liveness.tick(nowMicros: 4 * second) == [])
        #expect(liveness.nextDeadlineMicros == 3 * second + ConnectionLiveness.closeFlushMicros)
        #expect(liveness.tick(nowMicros: 10 * second) == [.abort])
    }

    @Test func nextDeadlineIsTheEarlierOfKeepaliveAndDeadPeer() {
        var liveness = ConnectionLiveness(timings: timings, nowMicros: 0)
        #expect(liveness.nextDeadlineMicros == 5 * second)
        liveness.sent(atMicros: 18 * second)
        #expect(liveness.nextDeadlineMicros == 20 * second + 1)
    }

    @Test(arguments: [(Duration.milliseconds(1500), UInt64(1_500_000)), (.seconds(20), 20_000_000), (.microseconds(7), 7), (.seconds(-1), 0)])
    func durationsConvertToMicroseconds(duration: Duration, micros: UInt64) {
        #expect(ConnectionTimings.micros(duration) == micros)
    }
}

/// A peer that trickles the fragments of a message that never completes (each record is
/// authenticated, so it counts as alive) is closed once the message has taken a minute.
@Suite struct MessageDeadlineTests {
    let timings = ConnectionTimings(keepaliveInterval: .seconds(5), deadPeerTimeout: .seconds(20))
    let second: UInt64 = 1_000_000

    @Test func aMessageThatNeverCompletesIsCutOffAfterAMinute() {
        var liveness = ConnectionLiveness(timings: timings, nowMicros: 0)
        var closedAt: UInt64?
        for step in 1...200 where closedAt == nil {
            let now = UInt64(step) * second
            liveness.heard(atMicros: now, receivingMessage: true)
            if liveness.tick(nowMicros: now).contains(where: { if case .closeStalledMessage = $0 { true } else { false } }) {
                closedAt = now
            }
        }
        #expect(closedAt == 62 * second, "the message began at 1 s; more than 60 s later it is cut off")
    }

    @Test func messagesThatCompleteResetTheClock() {
        var liveness = ConnectionLiveness(timings: timings, nowMicros: 0)
        for step in 1...300 {
            let now = UInt64(step) * second
            // Each message takes 50 s, then completes.
            liveness.heard(atMicros: now, receivingMessage: step % 50 != 0)
            let actions = liveness.tick(nowMicros: now)
            #expect(!actions.contains { if case .closeStalledMessage = $0 { true } else { false } }, "step \(step)")
        }
    }
}
