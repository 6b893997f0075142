public import ZRCFrames
public import ZRCProtocol

/// When a host session's frames go, sans-IO: what the session's screen stream does next at each
/// moment, given acknowledgements, input, damage and round trips, each with "now".
///
/// Order of precedence: an input's answer first (one small update may leave on an input credit
/// though the path is full), then frames at the pacer's rate (`FramePacer`), then refinements of
/// still areas once nothing is in flight. The stream itself (what changed, the encoding) is the
/// driver's `FrameStream`; it reports what matters here as a `StreamStatus` at each step.
public struct FrameScheduler: Sendable {
    /// What both sides announced that shapes the schedule.
    public struct Settings: Sendable, Equatable {
        /// Whether a large change may go in parts sized to the path.
        public var splitsLargeUpdates: Bool
        /// Whether the controller gets `linkStats` (the host's listing always does).
        public var sendsLinkStats: Bool
        /// Whether the pointer travels as shape and position (`cursorShape`): followed (`PointerWatch` says when).
        public var followsPointer: Bool
        /// Whether the monitor layout is sent (`monitors`): read once a second.
        public var followsMonitors: Bool
        /// Whether the controller's `pictureRequest` is honoured (`scaledPictures`).
        public var scalesPictures: Bool

        public init(splitsLargeUpdates: Bool = true, sendsLinkStats: Bool = true, followsPointer: Bool = true, followsMonitors: Bool = true,
                    scalesPictures: Bool = true) {
            self.splitsLargeUpdates = splitsLargeUpdates
            self.sendsLinkStats = sendsLinkStats
            self.followsPointer = followsPointer
            self.followsMonitors = followsMonitors
            self.scalesPictures = scalesPictures
        }
    }

    /// What the driver's frame stream says at a step.
    public struct StreamStatus: Sendable, Equatable {
        /// Fewer frames in flight than the stream allows.
        public var canSend: Bool
        public var nothingInFlight: Bool
        /// When still areas are due a refinement (nil: none is).
        public var refinementDueMicros: UInt64?
        /// Parts of a large change are left for later.
        public var owesParts: Bool

        public init(canSend: Bool = true, nothingInFlight: Bool = true, refinementDueMicros: UInt64? = nil, owesParts: Bool = false) {
            self.canSend = canSend
            self.nothingInFlight = nothingInFlight
            self.refinementDueMicros = refinementDueMicros
            self.owesParts = owesParts
        }
    }

    /// A point of the screen, in its pixels.
    public struct Point: Sendable, Equatable {
        public var x: Int
        public var y: Int

        public init(x: Int, y: Int) {
            self.x = x
            self.y = y
        }
    }

    /// What the next capture is for: how many changed pixels the update may carry, where it starts
    /// (recent input), whether it leaves on an input credit, and the motion quality.
    public struct CapturePlan: Sendable, Equatable {
        public var pixelBudget: Int
        public var focus: Point?
        public var credited: Bool
        public var motionQuality: Int

        public init(pixelBudget: Int, focus: Point?, credited: Bool, motionQuality: Int) {
            self.pixelBudget = pixelBudget
            self.focus = focus
            self.credited = credited
            self.motionQuality = motionQuality
        }
    }

    public let settings: Settings
    /// The path's delivery rate and round trip, and when a frame may leave.
    public private(set) var pacer = FramePacer()
    public private(set) var quality = QualityController()
    /// When each frame in flight left.
    private var sentAt: [UInt64: UInt64] = [:]
    /// The newest keepalive or probe round trip already given to the pacer.
    private var roundTripSeen: UInt64?
    private var nextProbeID: UInt64 = 1 << 62
    private var lastProbeMicros: UInt64?
    private var lastLinkStatsMicros: UInt64?
    /// Wire bytes per changed pixel of recent large updates (smoothed), for sizing updates to the path.
    private var bytesPerPixel: Double?
    /// When input that usually gets an answer on screen (a press, a scroll, typed text) arrived
    /// and no update has yet left on its behalf.
    private var inputCredit: UInt64?
    /// While parts of a change go one after the other and the pacer holds none back (the host,
    /// not the path, sets their pace): when the last such update was planned, and the smoothed
    /// time between them (µs).
    private var lastPartMicros: UInt64?
    private var partIntervalMicros: Double?
    /// Whether the pacer held back an owed update since the last one was planned.
    private var heldByPacer = false
    /// Where the controller's input last went (screen pixels) and when.
    private var lastInput: (point: Point, micros: UInt64)?
    /// A change seen (or a picture asked for) that still has to be captured. The first picture is owed.
    private var changeOwed = true
    private var pointer = PointerWatch()
    private var monitorsReadMicros: UInt64?
    /// What the controller last asked to see; nil: the whole screen at full resolution.
    public private(set) var pictureRequest: PictureRequest?

    /// An update crosses the path in about this long at most (µs), so input's answer never waits
    /// long behind motion: the click-to-frame time stays near the round trip on slow links.
    public static let updateTransferMicros = 15_000.0
    /// The application's time to draw its answer: an update captured sooner would leave without it.
    public static let answerDelayMicros: UInt64 = 3_000
    /// A credit not used by then (nothing changed on screen) lapses.
    public static let creditLifetimeMicros: UInt64 = 250_000
    /// An update on an input credit is sized to cross in this long.
    public static let creditTransferMicros = 5_000.0
    /// Input counts as recent (focus, smaller updates) for this long.
    public static let recentInputMicros: UInt64 = 1_000_000
    /// A path that holds this many updates of `updateTransferMicros` is long: there updates are
    /// sized to the host's pace when it is slower than the path's, crossing in this long at most.
    public static let longPathUpdates = 4
    public static let longPathTransferMicros = 25_000.0
    /// While frames are in flight the driver looks at acknowledgements and the pointer this often.
    public static let inFlightGlanceMicros: UInt64 = 16_000

    public init(settings: Settings) {
        self.settings = settings
    }

    // MARK: Inputs

    /// The screen may have changed.
    public mutating func screenChanged() { changeOwed = true }

    /// The controller asked for a picture of another size or region; true when it differs from the
    /// one asked for before (the driver then makes pictures that way).
    public mutating func requestPicture(_ request: PictureRequest) -> Bool {
        guard settings.scalesPictures, request != pictureRequest else { return false }
        pictureRequest = request
        changeOwed = true
        return true
    }

    /// The pointer was looked at: whether its shape is on the controller, and whether it moved.
    public mutating func pointerFollowed(shown: Bool, moved: Bool, now: UInt64) {
        pointer.followed(shown: shown, moved: moved, now: now)
    }

    /// A round trip measured by a keepalive or probe ping.
    public mutating func roundTripMeasured(_ micros: UInt64, now: UInt64) {
        guard micros != roundTripSeen else { return }
        roundTripSeen = micros
        pacer.observeRoundTrip(micros: micros, now: now)
    }

    /// The controller's input, injected: the next update starts where it went, and one that
    /// usually gets an answer on screen earns an input credit.
    public mutating func noteInput(_ event: InputEvent, now: UInt64) {
        pointer.inputCame()
        switch event {
        case .pointerMove(let x, let y), .button(_, _, let x, let y), .scroll(_, _, let x, let y):
            lastInput = (Point(x: Int(x), y: Int(y)), now)
        case .key, .text:
            if let last = lastInput { lastInput = (last.point, now) }
        }
        switch event {
        case .button(_, true, _, _), .key(_, true, _), .scroll, .text:
            inputCredit = now
        case .pointerMove, .button, .key:
            break
        }
    }

    /// The controller acknowledged `frameID` (and every older frame) at `now`.
    public mutating func acknowledged(_ frameID: UInt64, now: UInt64) {
        guard let sent = sentAt.removeValue(forKey: frameID) else { return }
        // An acknowledgement covers the older frames it overtook.
        sentAt = sentAt.filter { $0.key > frameID }
        pacer.acknowledged(frameID: frameID, now: now)
        // Quality follows what a frame costs beyond the path's own delay: its transfer and any
        // queueing, not the distance (a far but fast path keeps its quality).
        let elapsed = now &- sent
        quality.frameAcknowledged(afterMicros: pacer.minimumRoundTripMicros.map { elapsed > $0 ? elapsed - $0 : 0 } ?? elapsed)
    }

    /// An update of `wireBytes` drawing `pixels` changed pixels left at `now`; returns the path
    /// report when one is due (about once a second).
    public mutating func sent(frameID: UInt64, wireBytes: Int, pixels: Int, credited: Bool, now: UInt64) -> [HostSessionAction] {
        if credited || creditReady(now: now) { inputCredit = nil }
        sentAt[frameID] = now
        pacer.sent(frameID: frameID, bytes: wireBytes, now: now)
        if pixels >= 16_384 {
            let sample = Double(wireBytes) / Double(pixels)
            bytesPerPixel = bytesPerPixel.map { $0 * 0.7 + sample * 0.3 } ?? sample
        }
        guard lastLinkStatsMicros.map({ now &- $0 >= 1_000_000 }) ?? true else { return [] }
        lastLinkStatsMicros = now
        return [.reportLink(linkStats, toPeer: settings.sendsLinkStats)]
    }

    /// The path as measured.
    public var linkStats: LinkStats {
        LinkStats(deliveryRate: UInt64(pacer.deliveryRate ?? 0), roundTripMicros: pacer.minimumRoundTripMicros ?? 0,
                  queueMicros: UInt64(pacer.queueMicros), inFlightBytes: UInt32(clamping: pacer.bytesInFlight))
    }

    // MARK: Outputs

    /// The work due at `now`: follow the pointer, read the monitors, probe the round trip, capture.
    public mutating func tick(now: UInt64, stream: StreamStatus) -> [HostSessionAction] {
        var actions: [HostSessionAction] = []
        if settings.followsPointer, pointer.looks(now: now) { actions.append(.followPointer) }
        if settings.followsMonitors, monitorsReadMicros.map({ now &- $0 >= 1_000_000 }) ?? true {
            monitorsReadMicros = now
            actions.append(.readMonitors)
        }
        // A refinement goes only once every frame in flight is acknowledged.
        guard changeOwed || (refinementDue(now: now, stream: stream) && stream.nothingInFlight) else { return actions }
        if let probe = probe(now: now, stream: stream) { actions.append(probe) }
        guard stream.canSend, pacer.maySend || creditReady(now: now) else {
            if changeOwed { heldByPacer = true }
            return actions
        }
        let credited = !pacer.maySend
        if !credited { notePart(now: now, continuing: stream.owesParts) }
        changeOwed = false
        actions.append(.capture(CapturePlan(pixelBudget: pixelBudget(credited: credited, now: now), focus: focus(now: now),
                                            credited: credited, motionQuality: quality.quality)))
        return actions
    }

    /// How the driver waits after the step's work. The screen is looked at only when a change
    /// could be sent: a controller that stopped acknowledging must not make the host spin on damage.
    public mutating func nextWake(now: UInt64, stream: StreamStatus) -> HostSessionMachine.Wake {
        // Parts of a large change left for later go as soon as the path has room.
        if stream.owesParts { changeOwed = true }
        let refinementWaits = refinementDue(now: now, stream: stream) && !stream.nothingInFlight
        guard stream.canSend, pacer.maySend || creditReady(now: now), !refinementWaits else {
            if changeOwed, !pacer.maySend { heldByPacer = true }
            // Woken by an acknowledgement (or an input's answer coming due), so the next frame
            // leaves as soon as it may; the deadline keeps the pointer followed meanwhile.
            var deadline = now &+ Self.inFlightGlanceMicros
            if let credit = inputCredit, credit &+ Self.answerDelayMicros > now { deadline = min(deadline, credit &+ Self.answerDelayMicros) }
            return .events(untilMicros: deadline, thenGlanceAtScreen: true)
        }
        if changeOwed { return .screen(untilMicros: now) }
        // Pointer motion is not screen damage: look at the pointer often enough to follow it.
        if settings.followsPointer, let look = pointer.nextLookMicros(now: now) { return .screen(untilMicros: look) }
        if let due = stream.refinementDueMicros { return .screen(untilMicros: max(due, now)) }
        return .screen(untilMicros: now &+ 1_000_000)
    }

    // MARK: File chunks

    /// Whether file chunks wait this step: the answer to input is due, or a change is owed that
    /// the path has no room for yet — the room acknowledgements make goes to the frame first.
    public func fillersWait(now: UInt64) -> Bool {
        creditReady(now: now) || changeOwed && !pacer.maySend
    }

    /// The pacer, for file chunks that share the path with frames.
    public mutating func withPacer<T>(_ body: (inout FramePacer) -> T) -> T { body(&pacer) }

    // MARK: Decisions

    private func refinementDue(now: UInt64, stream: StreamStatus) -> Bool {
        stream.refinementDueMicros.map { now >= $0 } ?? false
    }

    /// Whether the answer to recent input may leave now though the path is full: one update of
    /// the tiles around the input, sized to cross in `creditTransferMicros`. It waits behind at
    /// most what is already in flight — a few milliseconds of motion — instead of also behind
    /// the pacer's next opening and the parts of motion queued for it.
    func creditReady(now: UInt64) -> Bool {
        guard let at = inputCredit else { return false }
        let age = now &- at
        return age >= Self.answerDelayMicros && age < Self.creditLifetimeMicros
    }

    /// An update is planned at `now`; `continuing`: it takes up parts the last one left.
    private mutating func notePart(now: UInt64, continuing: Bool) {
        if continuing, !heldByPacer, let last = lastPartMicros {
            let sample = Double(now &- last)
            partIntervalMicros = partIntervalMicros.map { $0 * 0.8 + sample * 0.2 } ?? sample
        }
        lastPartMicros = now
        heldByPacer = false
    }

    /// A ping while nothing is in flight, when frames have hidden the path's bare delay for a while.
    private mutating func probe(now: UInt64, stream: StreamStatus) -> HostSessionAction? {
        guard stream.nothingInFlight, pacer.wantsRoundTripProbe(now: now),
              lastProbeMicros.map({ now &- $0 > 1_000_000 }) ?? true
        else { return nil }
        lastProbeMicros = now
        nextProbeID &+= 1
        return .probe(id: nextProbeID, sentAtMicros: now)
    }

    /// Whether input is recent: its answer comes before the path's use.
    private func interactive(now: UInt64) -> Bool {
        lastInput.map { now &- $0.micros < Self.recentInputMicros } ?? false
    }

    /// The focus for the next update: input within the last second.
    private func focus(now: UInt64) -> Point? {
        interactive(now: now) ? lastInput?.point : nil
    }

    /// Changed pixels the next update may carry: what crosses the path in `updateTransferMicros`
    /// at the recent cost per pixel (no limit until both are known, or on a fast path) — half
    /// that while input is recent, so its answer never queues behind much motion, and only
    /// `creditTransferMicros` for an update sent on an input credit.
    ///
    /// On a long path (one that holds at least `longPathUpdates` such updates), while no input is
    /// recent, the host, not the path, may set the pace: parts of a large change leave as fast as
    /// the host makes them and the path still has room. There an update carries what the path
    /// delivers while the host makes the next, and a quarter more — else the path would stay part
    /// empty (at most `longPathTransferMicros`).
    private func pixelBudget(credited: Bool, now: UInt64) -> Int {
        guard settings.splitsLargeUpdates, let rate = pacer.deliveryRate, let bytesPerPixel, bytesPerPixel > 0 else { return .max }
        let interactive = interactive(now: now)
        var micros = credited ? Self.creditTransferMicros : interactive ? Self.updateTransferMicros / 2 : Self.updateTransferMicros
        // While input is recent the answer to the next click must not wait behind a long update:
        // updates stay small (and the path part empty) until the input has rested a second.
        if !credited, !interactive, let interval = partIntervalMicros, let pathBytes = pacer.pathBytes,
           pathBytes >= Double(Self.longPathUpdates) * max(16_384, rate * Self.updateTransferMicros / 1_000_000) {
            micros = max(micros, min(Self.longPathTransferMicros, interval * 1.25))
        }
        let bytes = max(credited ? 4096 : 16_384, rate * micros / 1_000_000)
        return max(4096, Int(min(Double(Int.max / 2), bytes / bytesPerPixel)))
    }
}
