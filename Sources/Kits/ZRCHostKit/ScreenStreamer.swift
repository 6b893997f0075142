import Logging
import ZRCFrames
import ZRCHostCore
import ZRCNetworking
import ZRCProtocol

/// The screen as one session sees it: captures, sends only what changed, refines still areas —
/// when and how much its `SessionDriver`'s machine says (`FrameScheduler`). The single owner of
/// that session's `FrameStream` and encoder.
///
/// Not Sendable: it belongs to its driver, and every async method runs on the driver's actor
/// (the `isolation` parameter), so the driver's message handling and this work interleave only
/// at their awaits, as an actor's own methods do.
final class ScreenStreamer {
    let sharing: ScreenSharing
    let connection: SecureConnection
    let logger: Logger
    let viewer: ScreenViewer
    var stream: FrameStream
    var encoder: SharingEncoder
    /// What the schedule needs from both sides' capabilities.
    let settings: FrameScheduler.Settings
    /// Whether both sides announced `compactFrames`, and what the controller knows of the previous update.
    let compactsFrames: Bool
    var frameContext = CompactFrameContext()
    var sentShapeID: UInt32?
    var sentPosition: (x: Int32, y: Int32, visible: Bool)?
    var sentMonitors: [MonitorArea]?
    /// What the controller last asked to see; nil: the whole screen at full resolution.
    var pictureRequest: PictureRequest?
    /// The mapping last announced to the controller (nil: none yet, the controller assumes the
    /// whole screen at full resolution) and the scaler making its pictures (nil: no scaling).
    var announcedMapping: PictureMapping?
    var scaler: PictureScaler?
    /// This session's part in sharing updates with others in the same state (nil: its controller
    /// takes neither lossless frames nor a shared lossless stream, or sharing is off), and the
    /// name of its stream's state.
    let updates: SharedUpdates.Membership?
    var stateName: Int?
    /// The newest capture generation whose damage this session has taken (captured or followed):
    /// an update made from an older capture must not be followed — the screen may have changed
    /// back since (a blinking cursor), and that change is no longer owed to this viewer.
    var lookedAt: UInt64 = 0
    /// What the update from this state to this capture is keyed by, while updates are shared.
    var sharingKey: SharedUpdates.Key?

    /// An update that left, for the schedule.
    struct Sent {
        var frameID: UInt64
        var wireBytes: Int
        /// Changed pixels it draws (copies aside).
        var pixels: Int
        var sendMicros: UInt64
    }

    /// `capabilities`: what both sides announced; its rect encodings must include a picture encoding.
    init(viewer: ScreenViewer, sharing: ScreenSharing, capabilities: Capabilities, connection: SecureConnection, logger: Logger) throws {
        self.viewer = viewer
        self.sharing = sharing
        self.connection = connection
        self.logger = logger
        settings = FrameScheduler.Settings(splitsLargeUpdates: sharing.splitsLargeUpdates, sendsLinkStats: capabilities.contains(.linkStats),
                                           followsPointer: capabilities.contains(.cursorShape), followsMonitors: capabilities.contains(.monitors),
                                           scalesPictures: capabilities.contains(.scaledPictures))
        compactsFrames = capabilities.contains(.compactFrames)
        var configuration = sharing.stream
        configuration.encodings = capabilities.intersection(Capabilities.rectEncodings).subtracting(.losslessFrames)
        // A controller that takes restarts decodes chunks of streams shared with other sessions;
        // one that takes only lossless frames gets them while others watch.
        let sharesStreams = capabilities.contains(.sharedLosslessStream) && sharing.sharesEncodings
        if !sharesStreams { configuration.encodings.remove(.sharedLosslessStream) }
        updates = (capabilities.contains(.losslessFrames) || sharesStreams) && sharing.sharesEncodings ? sharing.updates.join() : nil
        // The pacer decides how many fit the path (at most its own cap); the stream only caps the
        // count, one above the pacer's, so an input credit's update can leave when the pacer's
        // frames fill every slot (a long path holds several).
        configuration.maximumInFlight = FramePacer.maximumFramesInFlight + 1
        stream = FrameStream(configuration: configuration)
        encoder = SharingEncoder(base: try sharing.makeEncoder(), shared: sharing.encodings)
        if sharesStreams {
            encoder.lossless = LosslessRoute(stream: SharedLosslessStream(makeEncoder: sharing.makeEncoder))
            updates?.streamMoved(to: 0)
        }
    }

    /// What the schedule needs to know of the stream.
    var status: FrameScheduler.StreamStatus {
        FrameScheduler.StreamStatus(canSend: stream.canSend, nothingInFlight: stream.inFlight.isEmpty,
                                    refinementDueMicros: stream.refinementDueMicros, owesParts: stream.owesParts)
    }

    func acknowledge(_ frameID: UInt64) { stream.acknowledge(frameID) }

    /// Returns when the screen may have changed for this viewer (true) or after `timeout`.
    func waitForChange(timeout: Duration, isolation: isolated (any Actor)? = #isolation) async -> Bool {
        await sharing.source.waitForChange(for: viewer, timeout: timeout)
    }

    /// Captures (or takes the update another session made) and sends what changed, as planned.
    func capture(_ plan: FrameScheduler.CapturePlan, isolation: isolated (any Actor)? = #isolation) async throws -> Sent? {
        let started = WireClock.monotonicMicros()
        stream.configuration.motionQuality = plan.motionQuality
        stream.configuration.focus = focus(plan.focus)
        let size = stream.pictureSize
        setBudget(plan.pixelBudget, area: size.width * size.height)
        var lead: SharedUpdates.Lead?
        switch await followOrLead() {
        case .followed(let update):
            return try await send(update, started: started, captured: started, isRefinement: false)
        case .leading(let claimed):
            lead = claimed
        case .alone:
            break
        }
        defer { if let lead { updates?.shared.finish(lead) } }
        let capture = try await sharing.source.capture(for: viewer)
        lookedAt = max(lookedAt, capture.generation)
        let picture = try await picture(of: capture)
        setBudget(plan.pixelBudget, area: picture.pixels.width * picture.pixels.height)
        let pictureName = SharedEncodings.Picture(generation: sharing.sharesEncodings ? capture.generation : 0,
                                                  mapping: scaler == nil ? nil : announcedMapping)
        encoder.picture = pictureName
        let captured = WireClock.monotonicMicros()
        var isRefinement = false
        var update: FrameUpdate?
        let marks = stream.marks
        prepareLosslessStream()
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
        guard let update else { return nil }
        return try await send(update, started: started, captured: captured, isRefinement: isRefinement)
    }

    /// The focus in the picture's pixels (the schedule keeps it in the screen's).
    private func focus(_ point: FrameScheduler.Point?) -> (x: Int, y: Int)? {
        guard let point else { return nil }
        guard let scaler else { return (point.x, point.y) }
        return scaler.pictureRect(covering: PixelRect(x: point.x, y: point.y, width: 1, height: 1)).map { ($0.x, $0.y) }
    }

    /// A budget the whole picture fits in is no budget: sessions with different paths but room
    /// enough for everything make the same update (and can share it).
    private func setBudget(_ budget: Int, area: Int) {
        stream.configuration.maximumUpdatePixels = area > 0 && budget >= area ? .max : budget
    }

    private func send(_ update: FrameUpdate, started: UInt64, captured: UInt64, isRefinement: Bool,
                      isolation: isolated (any Actor)? = #isolation) async throws -> Sent {
        var update = update
        update.sendMicros = WireClock.monotonicMicros()
        // One hop: the connection says what the update took on the wire.
        let wireBytes = try await connection.sendCounted(compactsFrames ? frameContext.message(for: update) : .frameUpdate(update))
        let queued = WireClock.monotonicMicros()
        sharing.onUpdate?(UpdateMeasurement(captureMicros: captured &- started, detectMicros: stream.lastStages.detectMicros,
                                            encodeMicros: stream.lastStages.encodeMicros, sendMicros: queued &- update.sendMicros,
                                            wireBytes: wireBytes, rects: update.rects.count, quality: Int(update.quality),
                                            isRefinement: isRefinement))
        return Sent(frameID: update.frameID, wireBytes: wireBytes, pixels: update.drawnPixels, sendMicros: update.sendMicros)
    }
}
