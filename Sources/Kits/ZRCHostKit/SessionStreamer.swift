import Logging
import ZRCFrames
import ZRCNetworking
import ZRCProtocol

/// Streams the screen to one session: waits for changes, captures, sends only what changed, and
/// refines still areas; the single owner of that session's `FrameStream` and encoder.
actor SessionStreamer {
    let sharing: ScreenSharing
    let connection: SecureConnection
    let logger: Logger
    var stream: FrameStream
    private var encoder: SharingEncoder
    private var quality = QualityController()
    private var sentAt: [UInt64: UInt64] = [:]
    /// The path's delivery rate and round trip, and when a frame may leave (see `FramePacer`).
    var pacer = FramePacer()
    /// The newest keepalive or probe round trip already given to the pacer.
    private var roundTripSeen: UInt64?
    private var nextProbeID: UInt64 = 1 << 62
    private var lastProbeMicros: UInt64 = 0
    private var lastLinkStatsMicros: UInt64 = 0
    /// Wire bytes per changed pixel of recent large updates (smoothed), for sizing updates to the path.
    private var bytesPerPixel: Double?
    /// An update crosses the path in about this long at most (µs), so input's answer never waits
    /// long behind motion: the click-to-frame time stays near the round trip on slow links.
    static let updateTransferMicros = 15_000.0
    /// Whether both sides announced `linkStats`.
    private let sendsLinkStats: Bool
    /// The path as last measured, for `zrc-host sessions`.
    private let link: SessionLink
    var sentShapeID: UInt32?
    /// Whether both sides announced `monitors`, the layout sent last, and when it was read.
    let sendsMonitors: Bool
    var sentMonitors: [MonitorArea]?
    var monitorsReadMicros: UInt64 = 0
    var sentPosition: (x: Int32, y: Int32, visible: Bool)?
    let viewer: ScreenViewer
    var pointerMovedMicros: UInt64 = 0
    /// Whether both sides announced `cursorShape`: the pointer travels as shape and position.
    let sendsCursor: Bool
    /// Whether both sides announced `scaledPictures`: the controller's `pictureRequest` is honoured.
    let scalesPictures: Bool
    /// What the controller last asked to see; nil: the whole screen at full resolution.
    var pictureRequest: PictureRequest?
    /// The mapping last announced to the controller (nil: none yet, the controller assumes the
    /// whole screen at full resolution) and the scaler making its pictures (nil: no scaling).
    var announcedMapping: PictureMapping?
    var scaler: PictureScaler?
    /// This session's part in sharing updates with others in the same state (nil: its controller
    /// cannot take lossless frames, or sharing is off), and the name of its stream's state.
    let updates: SharedUpdates.Membership?
    var stateName: Int?
    /// The newest capture generation whose damage this session has taken (captured or followed):
    /// an update made from an older capture must not be followed — the screen may have changed
    /// back since (a blinking cursor), and that change is no longer owed to this viewer.
    var lookedAt: UInt64 = 0
    /// What the update from this state to this capture is keyed by, while updates are shared.
    var sharingKey: SharedUpdates.Key?

    /// `capabilities`: what both sides announced; its rect encodings must include a picture encoding.
    init(viewer: ScreenViewer, sharing: ScreenSharing, capabilities: Capabilities, connection: SecureConnection, link: SessionLink,
         logger: Logger) throws {
        self.link = link
        sendsLinkStats = capabilities.contains(.linkStats)
        self.viewer = viewer
        self.sharing = sharing
        self.connection = connection
        self.logger = logger
        sendsCursor = capabilities.contains(.cursorShape)
        sendsMonitors = capabilities.contains(.monitors)
        scalesPictures = capabilities.contains(.scaledPictures)
        var configuration = sharing.stream
        configuration.encodings = capabilities.intersection(Capabilities.rectEncodings).subtracting(.losslessFrames)
        updates = capabilities.contains(.losslessFrames) && sharing.sharesEncodings ? sharing.updates.join() : nil
        // The pacer decides how many fit the path (at most its own cap); the stream only caps the
        // count, one above the pacer's, so an input credit's update can leave when the pacer's
        // frames fill every slot (a long path holds several).
        configuration.maximumInFlight = FramePacer.maximumFramesInFlight + 1
        stream = FrameStream(configuration: configuration)
        encoder = SharingEncoder(base: try sharing.makeEncoder(), shared: sharing.encodings)
    }

    /// Runs until the connection closes or the task is cancelled. The screen is captured only
    /// when the source reports a change (or one is owed, or a refinement is due), never merely
    /// because time passed: the cursor is followed without capturing.
    func run() async {
        var changed = true
        while !Task.isCancelled, await connection.isOpen {
            do {
                try await sendCursor()
                try await sendMonitors()
                if changed { changeOwed = true }
                // A refinement goes only once every frame in flight is acknowledged.
                if changeOwed || (refinementDue && stream.inFlight.isEmpty) { try await stepFrames() }
                // Parts of a large change left for later go as soon as the path has room, not
                // when the screen next changes.
                if stream.owesParts { changeOwed = true }
            } catch {
                // A session that closed while a frame was on its way is no failure of the host.
                guard await connection.isOpen else {
                    logger.debug("screen streaming ended with the connection: \(error)")
                    return
                }
                logger.error("screen streaming stopped: \(error)")
                await connection.close(reason: .internalError, text: "the host could not capture or encode its screen")
                return
            }
            if !awaitingAcknowledgement {
                changed = await sharing.source.waitForChange(for: viewer, timeout: waitTime())
            } else {
                // Woken by the acknowledgement, so the next frame leaves as soon as it may; the
                // timeout keeps the cursor followed meanwhile. Damage keeps collecting per viewer.
                await waitForAcknowledgement(timeout: .milliseconds(16))
                changed = await sharing.source.waitForChange(for: viewer, timeout: .zero)
            }
        }
    }

    private var acknowledgementWaiter: CheckedContinuation<Void, Never>?

    /// Whether the next step needs an acknowledgement first: no frame may be sent, or a due
    /// refinement waits for the frames in flight (it is only sent once they are acknowledged).
    /// Waiting on the screen then would return at once, again and again: a controller that
    /// stopped acknowledging made the host spin a core.
    private var awaitingAcknowledgement: Bool {
        !stream.canSend || !(pacer.maySend || inputCreditReady) || (refinementDue && !stream.inFlight.isEmpty)
    }

    private func waitForAcknowledgement(timeout: Duration) async {
        guard awaitingAcknowledgement, !Task.isCancelled else { return }
        await withCheckedContinuation { continuation in
            acknowledgementWaiter = continuation
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                await self?.wakeAcknowledgementWaiter()
            }
        }
    }

    func wakeAcknowledgementWaiter() {
        acknowledgementWaiter?.resume()
        acknowledgementWaiter = nil
    }

    /// A change seen while a frame was in flight (or paced) that still has to be captured.
    var changeOwed = false

    private var refinementDue: Bool {
        stream.refinementDueMicros.map { WireClock.monotonicMicros() >= $0 } ?? false
    }

    /// Where the controller's input last went (screen pixels) and when: the next partial update
    /// starts there, since that is where the answer to input usually appears.
    private var lastInput: (x: Int, y: Int, micros: UInt64)?

    func noteInput(_ event: InputEvent) {
        let now = WireClock.monotonicMicros()
        switch event {
        case .pointerMove(let x, let y), .button(_, _, let x, let y), .scroll(_, _, let x, let y):
            lastInput = (Int(x), Int(y), now)
        case .key, .text:
            if let last = lastInput { lastInput = (last.x, last.y, now) }
        }
        switch event {
        case .button(_, true, _, _), .key(_, true, _), .scroll, .text:
            inputCredit = now
            // Look again once the application has had a moment to draw its answer.
            Task { [weak self] in
                try? await Task.sleep(for: .microseconds(Int64(Self.answerDelayMicros)))
                await self?.wakeAcknowledgementWaiter()
            }
        case .pointerMove, .button, .key:
            break
        }
    }

    /// When input that usually gets an answer on screen (a press, a scroll, typed text) arrived
    /// and no update has yet left on its behalf: one small update may then leave ahead of the
    /// pacer (see `inputCreditReady`).
    private var inputCredit: UInt64?
    /// The application's time to draw its answer: an update captured sooner would leave without it.
    static let answerDelayMicros: UInt64 = 3_000
    /// A credit not used by then (nothing changed on screen) lapses.
    static let creditLifetimeMicros: UInt64 = 250_000

    /// Whether the answer to recent input may leave now though the path is full: one update of
    /// the tiles around the input, sized to cross in `creditTransferMicros`. It waits behind at
    /// most what is already in flight — a few milliseconds of motion — instead of also behind
    /// the pacer's next opening and the parts of motion queued for it.
    private var inputCreditReady: Bool {
        guard let at = inputCredit else { return false }
        let age = WireClock.monotonicMicros() &- at
        return age >= Self.answerDelayMicros && age < Self.creditLifetimeMicros
    }
    static let creditTransferMicros = 5_000.0

    /// The focus for the next update, in the picture's pixels: input within the last second.
    private func inputFocus() -> (x: Int, y: Int)? {
        guard let input = lastInput, WireClock.monotonicMicros() &- input.micros < 1_000_000 else { return nil }
        guard let scaler else { return (input.x, input.y) }
        return scaler.pictureRect(covering: PixelRect(x: input.x, y: input.y, width: 1, height: 1)).map { ($0.x, $0.y) }
    }

    func acknowledge(_ frameID: UInt64) {
        stream.acknowledge(frameID)
        defer { wakeAcknowledgementWaiter() }
        guard let sent = sentAt.removeValue(forKey: frameID) else { return }
        // An acknowledgement covers the older frames it overtook.
        sentAt = sentAt.filter { $0.key > frameID }
        let now = WireClock.monotonicMicros()
        pacer.acknowledged(frameID: frameID, now: now)
        // Quality follows what a frame costs beyond the path's own delay: its transfer and any
        // queueing, not the distance (a far but fast path keeps its quality).
        let elapsed = now &- sent
        quality.frameAcknowledged(afterMicros: pacer.minimumRoundTripMicros.map { elapsed > $0 ? elapsed - $0 : 0 } ?? elapsed)
        stream.configuration.motionQuality = quality.quality
    }

    /// Feeds the pacer the newest ping round trip, and measures a fresh one (a ping while nothing
    /// is in flight) when frames have hidden the path's bare delay for a while.
    private func probeRoundTrip() async throws {
        let now = WireClock.monotonicMicros()
        if let roundTrip = await connection.roundTripMicros, roundTrip != roundTripSeen {
            roundTripSeen = roundTrip
            pacer.observeRoundTrip(micros: roundTrip, now: now)
        }
        guard stream.inFlight.isEmpty, pacer.wantsRoundTripProbe(now: now), now &- lastProbeMicros > 1_000_000 else { return }
        lastProbeMicros = now
        nextProbeID &+= 1
        try await connection.send(.ping(id: nextProbeID, sentAtMicros: now))
    }

    /// Changed pixels the next update may carry: what crosses the path in `updateTransferMicros`
    /// at the recent cost per pixel (no limit until both are known, or on a fast path) — half
    /// that while input is recent, so its answer never queues behind much motion, and only
    /// `creditTransferMicros` for an update sent on an input credit.
    private func updatePixelBudget(credited: Bool) -> Int {
        guard sharing.splitsLargeUpdates, let rate = pacer.deliveryRate, let bytesPerPixel, bytesPerPixel > 0 else { return .max }
        let interactive = lastInput.map { WireClock.monotonicMicros() &- $0.micros < 1_000_000 } ?? false
        let micros = credited ? Self.creditTransferMicros : interactive ? Self.updateTransferMicros / 2 : Self.updateTransferMicros
        let bytes = max(credited ? 4096 : 16_384, rate * micros / 1_000_000)
        return max(4096, Int(min(Double(Int.max / 2), bytes / bytesPerPixel)))
    }

    private func learnBytesPerPixel(_ update: FrameUpdate, wireBytes: Int) {
        let pixels = update.rects.reduce(0) { $0 + ($1.content.isCopy ? 0 : Int($1.width) * Int($1.height)) }
        guard pixels >= 16_384 else { return }
        let sample = Double(wireBytes) / Double(pixels)
        bytesPerPixel = bytesPerPixel.map { $0 * 0.7 + sample * 0.3 } ?? sample
    }

    /// About once a second: the path as measured, to the controller and to `zrc-host sessions`.
    private func reportLink() async throws {
        let now = WireClock.monotonicMicros()
        guard now &- lastLinkStatsMicros >= 1_000_000 else { return }
        lastLinkStatsMicros = now
        let stats = LinkStats(deliveryRate: UInt64(pacer.deliveryRate ?? 0), roundTripMicros: pacer.minimumRoundTripMicros ?? 0,
                              queueMicros: UInt64(pacer.queueMicros), inFlightBytes: UInt32(clamping: pacer.bytesInFlight))
        link.update(stats)
        if sendsLinkStats { try await connection.send(.linkStats(stats)) }
    }

    private func waitTime() -> Duration {
        if changeOwed { return .zero }
        let now = WireClock.monotonicMicros()
        // Pointer motion is not screen damage: look at the cursor often enough to follow it —
        // every frame while it moves, more calmly once it has rested for a while.
        if sentShapeID != nil {
            return now &- pointerMovedMicros < 2_000_000 ? .milliseconds(16) : .milliseconds(50)
        }
        if let due = stream.refinementDueMicros {
            return .microseconds(Int64(due > now ? due - now : 0))
        }
        return .seconds(1)
    }

    private func stepFrames() async throws {
        try await probeRoundTrip()
        guard stream.canSend, pacer.maySend || inputCreditReady else { return }
        let credited = !pacer.maySend
        changeOwed = false
        let started = WireClock.monotonicMicros()
        stream.configuration.focus = inputFocus()
        let size = stream.pictureSize
        setBudget(updatePixelBudget(credited: credited), area: size.width * size.height)
        var lead: SharedUpdates.Lead?
        switch await followOrLead() {
        case .followed(let update):
            try await send(update, credited: credited, started: started, captured: started, isRefinement: false)
            return
        case .leading(let claimed):
            lead = claimed
        case .alone:
            break
        }
        defer { if let lead { updates?.shared.finish(lead) } }
        let capture = try await sharing.source.capture(for: viewer)
        lookedAt = max(lookedAt, capture.generation)
        let picture = try await picture(of: capture)
        setBudget(updatePixelBudget(credited: credited), area: picture.pixels.width * picture.pixels.height)
        let pictureName = SharedEncodings.Picture(generation: sharing.sharesEncodings ? capture.generation : 0,
                                                  mapping: scaler == nil ? nil : announcedMapping)
        encoder.picture = pictureName
        let captured = WireClock.monotonicMicros()
        var isRefinement = false
        var update: FrameUpdate?
        let marks = stream.marks
        if let shared = try sharedUpdate(picture: picture, name: pictureName) {
            update = shared
        } else {
            update = try stream.offer(picture.pixels, hints: picture.hints, captureMicros: capture.captureMicros,
                                      clock: WireClock.monotonicMicros, encoder: &encoder)
            if update == nil {
                update = try stream.refine(picture.pixels, captureMicros: capture.captureMicros, clock: WireClock.monotonicMicros,
                                           encoder: &encoder)
                isRefinement = update != nil
            }
            shareComputed(update, picture: pictureName, unchanged: update == nil && stream.marks == marks)
        }
        if let finished = lead {
            // Now, not after sending: the sessions waiting for it go on at once.
            updates?.shared.finish(finished)
            lead = nil
        }
        guard let update else { return }
        try await send(update, credited: credited, started: started, captured: captured, isRefinement: isRefinement)
    }

    /// A budget the whole picture fits in is no budget: sessions with different paths but room
    /// enough for everything make the same update (and can share it).
    private func setBudget(_ budget: Int, area: Int) {
        stream.configuration.maximumUpdatePixels = area > 0 && budget >= area ? .max : budget
    }

    private func send(_ update: FrameUpdate, credited: Bool, started: UInt64, captured: UInt64, isRefinement: Bool) async throws {
        var update = update
        if credited || inputCreditReady { inputCredit = nil }
        update.sendMicros = WireClock.monotonicMicros()
        sentAt[update.frameID] = update.sendMicros
        let bytesBefore = await connection.sentBytes
        try await connection.send(.frameUpdate(update))
        let queued = WireClock.monotonicMicros()
        let wireBytes = await connection.sentBytes - bytesBefore
        pacer.sent(frameID: update.frameID, bytes: wireBytes, now: update.sendMicros)
        learnBytesPerPixel(update, wireBytes: wireBytes)
        try await reportLink()
        sharing.onUpdate?(UpdateMeasurement(captureMicros: captured &- started, detectMicros: stream.lastStages.detectMicros,
                                            encodeMicros: stream.lastStages.encodeMicros, sendMicros: queued &- update.sendMicros,
                                            wireBytes: wireBytes, rects: update.rects.count, quality: Int(update.quality),
                                            isRefinement: isRefinement))
    }
}
