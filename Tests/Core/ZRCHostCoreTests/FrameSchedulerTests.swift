import PropertyBased
import Testing
import ZRCHostCore
import ZRCProtocol
import ZRCFrames
import ZRCTestSupport

/// When frames go, on a fake clock in milliseconds: pacing, input credit, probing, refinement
/// timing, pointer and monitor follow-up, link reports.
@Suite struct FrameSchedulerTests {
    static func ms(_ value: UInt64) -> UInt64 { value * 1000 }

    static func scheduler(pointer: Bool = false, monitors: Bool = false) -> FrameScheduler {
        FrameScheduler(settings: .init(followsPointer: pointer, followsMonitors: monitors))
    }

    static func plan(_ actions: [HostSessionAction]) -> FrameScheduler.CapturePlan? {
        actions.lazy.compactMap { if case .capture(let plan) = $0 { plan } else { nil } }.first
    }

    static func probes(_ actions: [HostSessionAction]) -> Int {
        actions.filter { if case .probe = $0 { true } else { false } }.count
    }

    /// A path of 1 MB/s and 100 ms learned from one 200 kB frame (2 bytes a pixel), with a second
    /// 150 kB frame in flight since 300 ms: more than the path holds, so the pacer waits.
    static func fullPath() -> FrameScheduler {
        var scheduler = scheduler()
        scheduler.roundTripMeasured(ms(100), now: 0)
        _ = scheduler.tick(now: 0, stream: .init())
        _ = scheduler.sent(frameID: 1, wireBytes: 200_000, pixels: 100_000, credited: false, now: 0)
        scheduler.acknowledged(1, now: ms(300))
        _ = scheduler.sent(frameID: 2, wireBytes: 150_000, pixels: 75_000, credited: false, now: ms(300))
        return scheduler
    }

    static let inFlight = FrameScheduler.StreamStatus(canSend: true, nothingInFlight: false)

    @Test func theFirstPictureIsCapturedAtOnceWithoutALimitAfterAProbe() {
        var scheduler = Self.scheduler()
        let actions = scheduler.tick(now: Self.ms(5), stream: .init())
        #expect(Self.probes(actions) == 1, "the path's bare round trip is unknown")
        #expect(Self.plan(actions) == .init(pixelBudget: .max, focus: nil, credited: false, motionQuality: 70))
        #expect(Self.plan(scheduler.tick(now: Self.ms(6), stream: .init())) == nil, "nothing changed since")
    }

    @Test func aFullPathHoldsChangesBackAndTheDriverWaitsForAcknowledgements() {
        var scheduler = Self.fullPath()
        #expect(scheduler.pacer.deliveryRate == 1_000_000)
        scheduler.screenChanged()
        #expect(Self.plan(scheduler.tick(now: Self.ms(301), stream: Self.inFlight)) == nil)
        #expect(scheduler.nextWake(now: Self.ms(301), stream: Self.inFlight) == .events(untilMicros: Self.ms(317), thenGlanceAtScreen: true))
        // The acknowledgement empties the path: the owed change goes, limited to 15 ms of the path.
        scheduler.acknowledged(2, now: Self.ms(560))
        let plan = Self.plan(scheduler.tick(now: Self.ms(560), stream: .init()))
        #expect(plan?.pixelBudget == 16_384 / 2, "15 ms at 1 MB/s is under the 16 kB floor; 2 bytes a pixel")
        #expect(plan?.credited == false)
    }

    /// A far path (2.5 MB/s, 200 ms) holds 500 kB: motion's updates, sized to cross in 15 ms
    /// (37.5 kB), keep going while it has room (and an eighth more, `FramePacer.windowBytes`) —
    /// far more than a LAN's few frames in flight.
    @Test func aLongPathKeepsUpdatesGoingUntilItsBytesAreInFlight() {
        var scheduler = Self.scheduler()
        scheduler.roundTripMeasured(Self.ms(200), now: 0)
        _ = scheduler.tick(now: 0, stream: .init())
        _ = scheduler.sent(frameID: 1, wireBytes: 500_000, pixels: 1_000_000, credited: false, now: 0)
        scheduler.acknowledged(1, now: Self.ms(400))
        #expect(scheduler.pacer.deliveryRate == 2_500_000)
        var frame: UInt64 = 1
        var now = Self.ms(400)
        scheduler.screenChanged()
        while let plan = Self.plan(scheduler.tick(now: now, stream: frame == 1 ? .init() : Self.inFlight)), frame < 40 {
            #expect(plan.pixelBudget == 75_000, "15 ms of the path at 0.5 bytes a pixel")
            #expect(!plan.credited)
            frame += 1
            _ = scheduler.sent(frameID: frame, wireBytes: 37_500, pixels: 75_000, credited: false, now: now)
            now += 1000
            scheduler.screenChanged()
        }
        #expect(frame - 1 == 15, "the path's 500 kB and an eighth more (562.5 kB) take 15 updates")
        #expect(scheduler.nextWake(now: now, stream: Self.inFlight) == .events(untilMicros: now + Self.ms(16), thenGlanceAtScreen: true))
    }

    /// On a long path the host, not the path, may set the pace: parts of a large change made
    /// every 20 ms each carry what the path delivers meanwhile and a quarter more (25 ms, 62.5 kB)
    /// — unless input is recent: then they stay at half of 15 ms (18.75 kB), so a click's answer
    /// never waits behind a long update.
    @Test(arguments: [false, true])
    func aLongPathsUpdatesFollowTheHostsPaceUnlessInputIsRecent(inputRecent: Bool) {
        var scheduler = Self.scheduler()
        scheduler.roundTripMeasured(Self.ms(200), now: 0)
        _ = scheduler.tick(now: 0, stream: .init())
        _ = scheduler.sent(frameID: 1, wireBytes: 500_000, pixels: 1_000_000, credited: false, now: 0)
        scheduler.acknowledged(1, now: Self.ms(400))
        var now = Self.ms(400)
        var budgets: [Int] = []
        for frame in 2...6 as ClosedRange<UInt64> {
            if inputRecent { scheduler.noteInput(.pointerMove(x: 5, y: 5), now: now) }
            scheduler.screenChanged()
            let stream = FrameScheduler.StreamStatus(canSend: true, nothingInFlight: frame == 2, owesParts: true)
            guard let plan = Self.plan(scheduler.tick(now: now, stream: stream)) else {
                Issue.record("no update planned at \(now) µs")
                return
            }
            budgets.append(plan.pixelBudget)
            _ = scheduler.sent(frameID: frame, wireBytes: plan.pixelBudget / 2, pixels: plan.pixelBudget, credited: false, now: now)
            now += Self.ms(20)
        }
        if inputRecent {
            #expect(budgets == Array(repeating: 37_500, count: 5), "7.5 ms of the path at 0.5 bytes a pixel")
        } else {
            #expect(budgets == Array(repeating: 125_000, count: 5), "25 ms of the path at 0.5 bytes a pixel")
        }
    }

    @Test func anInputsAnswerLeavesOnACreditAfterTheApplicationsDrawingTime() {
        var scheduler = Self.fullPath()
        scheduler.noteInput(.button(1, pressed: true, x: 10, y: 20), now: Self.ms(302))
        scheduler.screenChanged()
        #expect(Self.plan(scheduler.tick(now: Self.ms(304), stream: Self.inFlight)) == nil, "the application is still drawing")
        #expect(scheduler.nextWake(now: Self.ms(304), stream: Self.inFlight) == .events(untilMicros: Self.ms(305), thenGlanceAtScreen: true),
                "woken when the answer is due, not at the next glance")
        let plan = Self.plan(scheduler.tick(now: Self.ms(305), stream: Self.inFlight))
        #expect(plan == .init(pixelBudget: 4096, focus: .init(x: 10, y: 20), credited: true, motionQuality: 65),
                "5 ms of the path is 2500 pixels: the floor of 4096, around the click")
        _ = scheduler.sent(frameID: 3, wireBytes: 8000, pixels: 4096, credited: true, now: Self.ms(306))
        scheduler.screenChanged()
        #expect(Self.plan(scheduler.tick(now: Self.ms(307), stream: Self.inFlight)) == nil, "one update per credit")
    }

    @Test func aCreditNobodyUsedLapses() {
        var scheduler = Self.fullPath()
        scheduler.noteInput(.key(keysym: 0x61, pressed: true, modifiers: []), now: Self.ms(310))
        scheduler.screenChanged()
        #expect(Self.plan(scheduler.tick(now: Self.ms(310 + 249), stream: Self.inFlight))?.credited == true, "still fresh")
        scheduler.screenChanged()
        #expect(Self.plan(scheduler.tick(now: Self.ms(310 + 250), stream: Self.inFlight)) == nil, "never used, lapsed")
    }

    @Test(arguments: [InputEvent.pointerMove(x: 1, y: 1), .button(1, pressed: false, x: 1, y: 1), .key(keysym: 0x61, pressed: false, modifiers: [])])
    func movesAndReleasesEarnNoCredit(event: InputEvent) {
        var scheduler = Self.fullPath()
        scheduler.noteInput(event, now: Self.ms(310))
        scheduler.screenChanged()
        #expect(Self.plan(scheduler.tick(now: Self.ms(320), stream: Self.inFlight)) == nil)
    }

    @Test func theRoundTripIsProbedWhenFramesHaveHiddenItAndAtMostOnceASecond() {
        var scheduler = Self.scheduler()
        scheduler.roundTripMeasured(Self.ms(40), now: 0)
        scheduler.screenChanged()
        #expect(Self.probes(scheduler.tick(now: Self.ms(10), stream: .init())) == 0, "a fresh round trip")
        scheduler.screenChanged()
        #expect(Self.probes(scheduler.tick(now: Self.ms(5001), stream: Self.inFlight)) == 0, "frames in flight would delay the ping")
        scheduler.screenChanged()
        #expect(Self.probes(scheduler.tick(now: Self.ms(5002), stream: .init())) == 1)
        scheduler.screenChanged()
        #expect(Self.probes(scheduler.tick(now: Self.ms(5900), stream: .init())) == 0, "not again within a second")
        scheduler.screenChanged()
        #expect(Self.probes(scheduler.tick(now: Self.ms(6100), stream: .init())) == 1)
    }

    @Test func aRefinementIsAwaitedThenSentOnceNothingIsInFlight() {
        var scheduler = Self.scheduler()
        _ = scheduler.tick(now: 0, stream: .init())
        let due = FrameScheduler.StreamStatus(refinementDueMicros: Self.ms(500))
        #expect(scheduler.nextWake(now: Self.ms(100), stream: due) == .screen(untilMicros: Self.ms(500)))
        #expect(Self.plan(scheduler.tick(now: Self.ms(499), stream: due)) == nil)
        let busy = FrameScheduler.StreamStatus(canSend: true, nothingInFlight: false, refinementDueMicros: Self.ms(500))
        #expect(Self.plan(scheduler.tick(now: Self.ms(500), stream: busy)) == nil, "not behind frames in flight")
        #expect(scheduler.nextWake(now: Self.ms(500), stream: busy) == .events(untilMicros: Self.ms(516), thenGlanceAtScreen: true))
        #expect(Self.plan(scheduler.tick(now: Self.ms(510), stream: due)) != nil)
    }

    @Test func partsLeftForLaterGoWithoutWaitingForTheScreen() {
        var scheduler = Self.scheduler()
        _ = scheduler.tick(now: 0, stream: .init())
        #expect(scheduler.nextWake(now: Self.ms(1), stream: .init(owesParts: true)) == .screen(untilMicros: Self.ms(1)))
        #expect(Self.plan(scheduler.tick(now: Self.ms(1), stream: .init())) != nil)
        #expect(scheduler.nextWake(now: Self.ms(2), stream: .init()) == .screen(untilMicros: Self.ms(1002)), "idle: a second")
    }

    @Test func thePointerIsFollowedEveryFrameWhileItMovesAndCalmlyAtRest() {
        var scheduler = Self.scheduler(pointer: true)
        #expect(scheduler.tick(now: 0, stream: .init()).first == .followPointer)
        scheduler.pointerFollowed(shown: true, moved: true, now: 0)
        // Counted from the last look: a step at 11 ms (which skips the look) waits only until 16 ms.
        #expect(!scheduler.tick(now: Self.ms(11), stream: .init()).contains(.followPointer))
        #expect(scheduler.nextWake(now: Self.ms(11), stream: .init()) == .screen(untilMicros: Self.ms(16)))
        #expect(scheduler.nextWake(now: Self.ms(30), stream: .init()) == .screen(untilMicros: Self.ms(30)), "overdue: at once")
        #expect(scheduler.tick(now: Self.ms(100), stream: .init()).contains(.followPointer))
        scheduler.pointerFollowed(shown: true, moved: false, now: Self.ms(100))
        #expect(scheduler.nextWake(now: Self.ms(100), stream: .init()) == .screen(untilMicros: Self.ms(116)))
        #expect(scheduler.tick(now: Self.ms(2100), stream: .init()).contains(.followPointer))
        scheduler.pointerFollowed(shown: true, moved: false, now: Self.ms(2100))
        #expect(scheduler.nextWake(now: Self.ms(2100), stream: .init()) == .screen(untilMicros: Self.ms(2150)), "at rest: calmly")
    }

    /// A download wakes the driver for every acknowledgement: each wake must not look at the
    /// pointer (an X round trip), but input is answered by a look at once.
    @Test func thePointerIsLookedAtOncePerFrameTimeUnlessInputCame() {
        var scheduler = Self.scheduler(pointer: true)
        let looks = [0, 1, 5, 11, 12, 13].map { at in
            scheduler.tick(now: Self.ms(at), stream: .init()).contains(.followPointer)
        }
        #expect(looks == [true, false, false, false, true, false])
        scheduler.noteInput(.pointerMove(x: 5, y: 5), now: Self.ms(14))
        #expect(scheduler.tick(now: Self.ms(14), stream: .init()).contains(.followPointer), "input: looked at once")
        #expect(!scheduler.tick(now: Self.ms(15), stream: .init()).contains(.followPointer))
    }

    @Test func monitorsAreReadOnceASecond() {
        var scheduler = Self.scheduler(monitors: true)
        let reads = [0, 500, 999, 1000, 1500, 2001].map { at in
            scheduler.tick(now: Self.ms(at), stream: .init()).contains(.readMonitors)
        }
        #expect(reads == [true, false, false, true, false, true])
    }

    @Test func thePathIsReportedAboutOnceASecondWhileFramesFlow() {
        var scheduler = Self.scheduler()
        let reports = [0, 500, 1000, 1999, 2000].enumerated().map { index, at in
            scheduler.sent(frameID: UInt64(index + 1), wireBytes: 1000, pixels: 100, credited: false, now: Self.ms(UInt64(at))).count
        }
        #expect(reports == [1, 0, 1, 0, 1])
    }

    @Test func slowAcknowledgementsLowerTheQualityAndFastOnesRaiseIt() {
        var scheduler = Self.scheduler()
        scheduler.roundTripMeasured(Self.ms(10), now: 0)
        for frame in 1...10 as ClosedRange<UInt64> {
            _ = scheduler.sent(frameID: frame, wireBytes: 1000, pixels: 100, credited: false, now: Self.ms(frame * 1000))
            scheduler.acknowledged(frame, now: Self.ms(frame * 1000 + 200))
        }
        scheduler.screenChanged()
        let low = Self.plan(scheduler.tick(now: Self.ms(20_000), stream: .init()))?.motionQuality ?? 0
        #expect(low < 70)
    }

    /// Whatever the events, a stream that cannot send is never captured for, and the driver is
    /// never told to look at the screen at once then (a controller that stopped acknowledging
    /// made the host spin a core).
    @Test func aStreamThatCannotSendNeverMakesTheDriverSpin() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...Int(UInt32.max))) { seed in
            var random = SplitMix64(seed: UInt64(seed))
            var scheduler = Self.scheduler(pointer: true)
            var now: UInt64 = 0
            var frame: UInt64 = 0
            for _ in 0..<200 {
                now += random.next() % 20_000
                switch random.next() % 5 {
                case 0: scheduler.screenChanged()
                case 1: scheduler.noteInput(.key(keysym: 0x61, pressed: true, modifiers: []), now: now)
                case 2: scheduler.acknowledged(frame, now: now)
                case 3: scheduler.roundTripMeasured(random.next() % 300_000, now: now)
                default: scheduler.pointerFollowed(shown: true, moved: random.next() % 2 == 0, now: now)
                }
                let blocked = FrameScheduler.StreamStatus(canSend: false, nothingInFlight: false, refinementDueMicros: random.next() % 2 == 0 ? now : nil,
                                                          owesParts: random.next() % 2 == 0)
                let actions = scheduler.tick(now: now, stream: blocked)
                #expect(Self.plan(actions) == nil)
                guard case .events(let until?, _) = scheduler.nextWake(now: now, stream: blocked), until > now else {
                    Issue.record("seed \(seed): the driver was told to look at once while nothing may be sent")
                    return
                }
                let open = FrameScheduler.StreamStatus()
                if Self.plan(scheduler.tick(now: now, stream: open)) != nil {
                    frame += 1
                    _ = scheduler.sent(frameID: frame, wireBytes: Int(random.next() % 100_000), pixels: 20_000, credited: false, now: now)
                }
            }
        }
    }
}
