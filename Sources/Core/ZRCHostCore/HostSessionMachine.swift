public import ZRCFrames
public import ZRCProtocol

/// One controller session on the host, sans-IO: messages, acknowledgements, damage, round trips
/// and "now" in; actions out (`HostSessionAction`), performed by the host kit's `SessionDriver`.
///
/// Message 1 of the handshake authenticated the controller's key, but a replayed message 1 does
/// too: a session only becomes real with the controller's `hello`, its first authenticated
/// transport message, which must arrive before the hello deadline; anything else first is a
/// protocol error. With approval on, the session then waits for the person at the host to accept
/// it (or for the approval deadline, refused); a view-only session that takes neither pictures nor
/// the clipboard (a ping, a presence probe) observes nothing and needs no approval. Then the
/// session is established — claiming control, controlling or watching — with its budgets and, once
/// streaming starts, its `FrameScheduler`.
public struct HostSessionMachine: Sendable {
    /// What this host lets the session do.
    public struct Policy: Sendable, Equatable {
        public var helloTimeoutMicros: UInt64
        /// The controller's grant is view-only.
        public var viewOnlyGrant: Bool
        /// The host injects input at all.
        public var acceptsInput: Bool
        /// The host shares its clipboard (nil: it does not).
        public var clipboard: ClipboardPolicy?
        /// How long the person at the host has to accept a new session (nil: sessions need no approval).
        public var approvalTimeoutMicros: UInt64?
        /// The host's file transfer (nil: it transfers no files).
        public var files: FileTransferDesk.Policy?

        public init(helloTimeoutMicros: UInt64, viewOnlyGrant: Bool, acceptsInput: Bool, clipboard: ClipboardPolicy?,
                    approvalTimeoutMicros: UInt64? = nil, files: FileTransferDesk.Policy? = nil) {
            self.helloTimeoutMicros = helloTimeoutMicros
            self.viewOnlyGrant = viewOnlyGrant
            self.acceptsInput = acceptsInput
            self.clipboard = clipboard
            self.approvalTimeoutMicros = approvalTimeoutMicros
            self.files = files
        }
    }

    public struct ClipboardPolicy: Sendable, Equatable {
        public var selections: Set<ClipboardSelection>
        /// Watchers may read the clipboard too (never set it).
        public var inViewOnlySessions: Bool

        public init(selections: Set<ClipboardSelection>, inViewOnlySessions: Bool) {
            self.selections = selections
            self.inViewOnlySessions = inViewOnlySessions
        }
    }

    public enum Role: Sendable, Equatable {
        /// The hello arrived; the driver is claiming control for it.
        case claiming
        case controlling
        /// View-only: by grant, or because another controller took control first.
        case watching
    }

    public struct Established: Sendable {
        public var role: Role
        public var budgets = SessionBudgets()
        /// The screen's schedule, once streaming started (nil: this controller takes no frames).
        public var frames: FrameScheduler?
        /// The session's file requests (nil: the host transfers no files, or the controller did not ask).
        public var files: FileTransferDesk?
        /// The path's pacing for file chunks while no frames go (with frames, theirs is shared).
        public var ownPacer = FramePacer()
    }

    /// A session whose hello arrived, waiting for the person at the host.
    public struct AwaitingApproval: Sendable, Equatable {
        public var capabilities: Capabilities
        public var agent: String
        public var deadlineMicros: UInt64
        /// The controller's newest picture request meanwhile, applied once accepted.
        public var pictureRequest: PictureRequest?
    }

    public enum State: Sendable {
        case awaitingHello(deadlineMicros: UInt64)
        case awaitingApproval(AwaitingApproval)
        case established(Established)
        /// The machine asked to close; the connection is flushing.
        case closing(reason: CloseReason, heldControl: Bool)
        case closed(heldControl: Bool)
    }

    /// How the driver waits before the next `tick`.
    public enum Wake: Sendable, Equatable {
        /// For screen damage, or until the deadline.
        case screen(untilMicros: UInt64)
        /// For an event (a message, an acknowledgement), or until the deadline (nil: none); then,
        /// if asked, a glance at the screen without waiting.
        case events(untilMicros: UInt64?, thenGlanceAtScreen: Bool)
    }

    public let policy: Policy
    public private(set) var state: State

    public init(policy: Policy, now: UInt64) {
        self.policy = policy
        state = .awaitingHello(deadlineMicros: now &+ policy.helloTimeoutMicros)
    }

    /// Whether this session controls the host's input (so its end releases what it holds).
    public var hasControl: Bool {
        switch state {
        case .awaitingHello, .awaitingApproval: false
        case .established(let established): established.role == .controlling
        case .closing(_, let held), .closed(let held): held
        }
    }

    /// Whether the session may use the host's clipboard (watchers only when the host allows it).
    public var mayUseClipboard: Bool {
        guard let clipboard = policy.clipboard, case .established(let established) = state else { return false }
        return established.role != .watching || clipboard.inViewOnlySessions
    }

    public var isViewOnly: Bool {
        guard case .established(let established) = state else { return policy.viewOnlyGrant }
        return established.role == .watching
    }

    // MARK: Messages

    /// A message from the controller.
    public mutating func received(_ message: ZRCMessage, now: UInt64) -> [HostSessionAction] {
        switch state {
        case .awaitingHello:
            // A pong is keepalive traffic, allowed before the hello.
            if case .pong = message { return [] }
            guard case .hello(_, let capabilities, let agent) = message else {
                return close(.protocolError, text: "the controller's first message must be hello, not \(message.type)")
            }
            if let timeout = policy.approvalTimeoutMicros, needsApproval(capabilities) {
                state = .awaitingApproval(AwaitingApproval(capabilities: capabilities, agent: agent, deadlineMicros: now &+ timeout))
                let seconds = timeout / 1_000_000
                return [.askApproval(viewOnly: policy.viewOnlyGrant),
                        .send(.error(code: .awaitingApproval, text: "waiting for the person at the host to accept this session (up to \(seconds) s)"))]
            }
            return establish(capabilities: capabilities, agent: agent)
        case .awaitingApproval(var waiting):
            // Nothing reaches the host before it is accepted; only the picture wanted is kept.
            switch message {
            case .pictureRequest(let request):
                waiting.pictureRequest = request
                state = .awaitingApproval(waiting)
                return []
            case .hello, .pong, .ping, .close, .error, .stats, .frameAck, .input, .clipboard, .clipboardRequest, .pairRequest, .pairAccepted,
                 .frameUpdate, .compactFrame, .cursorShape, .cursorPosition, .pictureMapping, .linkStats, .relayCredentials, .monitorLayout,
                 .fileTerms, .fileList, .fileEntries, .fileOpen, .fileReady, .fileData, .fileAck, .fileEnd, .fileDone, .fileFailed:
                return []
            }
        case .established:
            let policy = policy
            return withEstablished { $0.handle(message, policy: policy, now: now) } ?? []
        case .closing, .closed:
            return []
        }
    }

    /// Whether handling `message` can change what the session's loop does next (its tick or its
    /// next wake-up). A file chunk cannot: it only becomes a write, whose report comes back on its
    /// own — so the loop is not woken a few thousand times a second by an upload.
    public static func mayChangeSchedule(_ message: ZRCMessage) -> Bool {
        if case .fileData = message { return false }
        return true
    }

    /// Whether a session announcing `capabilities` waits for the person at the host: all but a
    /// view-only one that takes neither pictures nor the clipboard.
    private func needsApproval(_ capabilities: Capabilities) -> Bool {
        let observing: Capabilities = Capabilities.rectEncodings.union(.clipboard)
        return !policy.viewOnlyGrant || !capabilities.isDisjoint(with: observing)
    }

    private mutating func establish(capabilities: Capabilities, agent: String) -> [HostSessionAction] {
        var established = Established(role: policy.viewOnlyGrant ? .watching : .claiming)
        if let files = policy.files, capabilities.contains(.fileTransfer) { established.files = FileTransferDesk(policy: files) }
        state = .established(established)
        return [.begin(capabilities: capabilities, agent: agent)]
    }

    // MARK: The driver's reports

    /// The person at the host answered the session's approval request. Accepted, it begins as
    /// if no approval had been needed (with the picture the controller asked for meanwhile).
    public mutating func approvalAnswered(accepted: Bool, now: UInt64) -> [HostSessionAction] {
        guard case .awaitingApproval(let waiting) = state else { return [] }
        guard accepted else { return close(.policyRefused, text: "the person at the host refused this session") }
        var actions = establish(capabilities: waiting.capabilities, agent: waiting.agent)
        if let request = waiting.pictureRequest { actions.append(.showPicture(request)) }
        return actions
    }

    /// Control was claimed for this session.
    public mutating func controlGranted() {
        withEstablished { if $0.role == .claiming { $0.role = .controlling } }
    }

    /// Another controller's hello came first: `demote` keeps the session as a watcher (and says
    /// so), otherwise it closes.
    public mutating func controlRefused(demote: Bool, now: UInt64) -> [HostSessionAction] {
        guard demote else { return close(.policyRefused, text: "another controller took control first") }
        withEstablished { $0.role = .watching }
        return notice(.inputRefused, "another controller took control first: this session is view-only", now: now)
    }

    /// Frames go to the controller from now on.
    public mutating func startStreaming(_ settings: FrameScheduler.Settings) {
        withEstablished { if $0.frames == nil { $0.frames = FrameScheduler(settings: settings) } }
    }

    /// A notice to the controller about something the driver did for it, within the notice budget.
    public mutating func notice(_ code: NoticeCode, _ text: String, now: UInt64) -> [HostSessionAction] {
        withEstablished { $0.notice(code, text, now: now) } ?? []
    }

    public mutating func screenChanged() { withFrames { $0.screenChanged() } }

    public mutating func pointerFollowed(shown: Bool, moved: Bool, now: UInt64) {
        withFrames { $0.pointerFollowed(shown: shown, moved: moved, now: now) }
    }

    public mutating func roundTripMeasured(_ micros: UInt64, now: UInt64) {
        withFrames { $0.roundTripMeasured(micros, now: now) }
    }

    /// An update left (see `FrameScheduler.sent`).
    public mutating func sent(frameID: UInt64, wireBytes: Int, pixels: Int, credited: Bool, now: UInt64) -> [HostSessionAction] {
        withFrames { $0.sent(frameID: frameID, wireBytes: wireBytes, pixels: pixels, credited: credited, now: now) } ?? []
    }

    /// The session closes (a revoked controller, the host's failure); nothing more is done for it.
    public mutating func close(_ reason: CloseReason, text: String) -> [HostSessionAction] {
        switch state {
        case .awaitingHello, .awaitingApproval, .established:
            state = .closing(reason: reason, heldControl: hasControl)
            return [.close(reason, text: text)]
        case .closing, .closed:
            return []
        }
    }

    /// The connection is gone (either side closed it, or it broke).
    public mutating func connectionEnded() {
        state = .closed(heldControl: hasControl)
    }

    // MARK: Time

    /// The work due at `now`.
    public mutating func tick(now: UInt64, stream: FrameScheduler.StreamStatus) -> [HostSessionAction] {
        switch state {
        case .awaitingHello(let deadline):
            guard now >= deadline else { return [] }
            return close(.timeout, text: "no hello within \(policy.helloTimeoutMicros / 1000) ms of the handshake")
        case .awaitingApproval(let waiting):
            guard now >= waiting.deadlineMicros else { return [] }
            let seconds = (policy.approvalTimeoutMicros ?? 0) / 1_000_000
            return close(.policyRefused, text: "nobody at the host accepted this session within \(seconds) s")
        case .established:
            var actions = withFrames { $0.tick(now: now, stream: stream) } ?? []
            let wait = withFrames { $0.fillersWait(now: now) } ?? false
            actions += withFiles { desk, pacer in
                let rate = pacer.recentDeliveryRate(now: now)
                let room = FillerPacing.paces(rate: rate) ? pacer.pacedFillerRoom(minimumWindow: FileTransferDesk.pacedMinimumWindow) : pacer.fillerRoom
                return desk.plan(room: room, fillersWait: wait, rate: rate, now: now)
            } ?? []
            return actions
        case .closing, .closed:
            return []
        }
    }

    /// How to wait after the step's work.
    public mutating func nextWake(now: UInt64, stream: FrameScheduler.StreamStatus) -> Wake {
        switch state {
        case .awaitingHello(let deadline):
            return .events(untilMicros: deadline, thenGlanceAtScreen: false)
        case .awaitingApproval(let waiting):
            return .events(untilMicros: waiting.deadlineMicros, thenGlanceAtScreen: false)
        case .established:
            let wake = withFrames { $0.nextWake(now: now, stream: stream) } ?? .events(untilMicros: nil, thenGlanceAtScreen: false)
            // Chunks waiting: acknowledgements (events) make their room, so the loop waits for
            // events, not screen damage alone — looking at the screen at least as often as before.
            guard withFiles({ desk, _ in desk.hasChunksToSend }) == true else { return wake }
            // A chunk that pacing held back leaves at its time, whatever else comes.
            let paced = withFiles { desk, _ in desk.pacedUntilMicros } ?? nil
            let soon = min(now &+ FrameScheduler.inFlightGlanceMicros, paced ?? .max)
            switch wake {
            case .screen(let until): return .events(untilMicros: min(until, soon), thenGlanceAtScreen: true)
            case .events(let until, let glance): return .events(untilMicros: until.map { min($0, soon) } ?? soon, thenGlanceAtScreen: glance)
            }
        case .closing, .closed:
            return .events(untilMicros: nil, thenGlanceAtScreen: false)
        }
    }

    // MARK: In place

    /// Runs `body` on the established state in place. The state is parked meanwhile so the
    /// scheduler's buffers stay uniquely referenced (no copy per acknowledgement).
    @discardableResult
    mutating func withEstablished<T>(_ body: (inout Established) -> T) -> T? {
        guard case .established(var established) = state else { return nil }
        state = .closed(heldControl: false)
        defer { state = .established(established) }
        return body(&established)
    }

    @discardableResult
    private mutating func withFrames<T>(_ body: (inout FrameScheduler) -> T) -> T? {
        withEstablished { established -> T? in
            guard established.frames != nil else { return nil }
            return body(&established.frames!)
        } ?? nil
    }
}
