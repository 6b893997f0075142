public import ZRCControllerKit
public import ZRCProtocol
import ZRCViewer

/// The viewer's session logic, for every front end (the terminal, the browser page): when to
/// open a session and when to try again, what the status says, what the host's clipboard may do,
/// which monitor is shown, and how a browser's keys become X keysyms. Sans-IO: events and "now" (monotonic µs) in,
/// actions out; the front end opens sessions, sends, draws and sleeps.
public struct ViewerCore: Sendable {
    public enum Connection: Sendable, Equatable {
        /// An attempt to open a session is under way (1-based count since the last session).
        case connecting(attempt: Int)
        case connected(viewOnly: Bool, path: String)
        /// Waiting until `until` (µs) before attempt `attempt`; `reason` says why the last one ended.
        case waiting(until: UInt64, attempt: Int, reason: String)
        /// The viewer stops: trying again cannot help, or the user left.
        case ended(String)
    }

    public enum Event: Sendable {
        /// The front end opened a session.
        case opened(viewOnly: Bool, path: String)
        case openFailed(ControllerError)
        /// The open session ended.
        case ended(ConnectionEnd)
        case hostHello(Capabilities)
        case hostClipboard(ClipboardContent)
        case hostError(NoticeCode, String)
        /// The user asked for the host's clipboard (Ctrl+] c, the page's button).
        case takeClipboard
        /// A key as a browser reports it.
        case browserKey(pressed: Bool, key: String, code: String, modifiers: KeyModifiers)
        /// The front end lost focus or its input: let go of every key.
        case releaseKeys
        /// The host's monitor layout.
        case monitorLayout([MonitorArea])
        /// The user chose a monitor (nil: all of them), or the next one (Ctrl+] m).
        case showMonitor(Int?)
        case nextMonitor
        /// The user leaves.
        case leave(String)
        /// Time passed (the front end wakes at `nextWake`).
        case tick
    }

    public enum Action: Sendable, Equatable {
        /// Open a session (view-only or not); answer with `opened` or `openFailed`.
        case open(viewOnly: Bool)
        case send([InputEvent])
        /// Ask the host for its clipboard (`clipboardRequest`).
        case requestClipboard
        /// Put this text into the local clipboard (the policy let it through).
        case writeClipboard(String)
        /// Show this for `seconds` (4 for most, 8 for a refusal, 15 for a clipboard offer).
        case notice(String, seconds: Int)
        /// The host's monitors changed (for a front end that lists them).
        case monitors([MonitorArea])
        /// Show this part of the screen (nil: all of it) and ask the host for it alone.
        case show(MonitorArea?)
        /// Close the session, if one is open.
        case closeSession
        /// The viewer is over; the text says why.
        case finish(String)
    }

    public private(set) var connection: Connection
    public let viewOnlyRequested: Bool
    public let clipboardWanted: Bool
    /// The host shares a clipboard with this session and this viewer wants it: the host's
    /// copies may be taken (watchers too, when the host lets them read it).
    public private(set) var clipboardShared = false
    /// … and pastes may set it (sessions in control only).
    public var clipboardAvailable: Bool { clipboardShared && !isViewOnly }
    public private(set) var sessionsOpened = 0
    private var backoff = ReconnectBackoff()
    private var policy = ReconnectPolicy()
    private var clipboardGate: HostClipboardGate
    private var keyboard = BrowserKeyboard()
    public private(set) var monitorChoice = MonitorChoice()

    public init(viewOnly: Bool, clipboard: Bool, clipboardFromHost: Bool, takeHint: String) {
        viewOnlyRequested = viewOnly
        clipboardWanted = clipboard
        clipboardGate = HostClipboardGate(acceptsEverything: clipboard && clipboardFromHost, takeHint: takeHint)
        connection = .connecting(attempt: 1)
    }

    /// The first action: open a session.
    public func start() -> [Action] { [.open(viewOnly: viewOnlyRequested)] }

    public var isViewOnly: Bool {
        if case .connected(let viewOnly, _) = connection { return viewOnly }
        return viewOnlyRequested
    }

    /// When the front end should send `tick` next (µs), if it should.
    public var nextWake: UInt64? {
        if case .waiting(let until, _, _) = connection { return until }
        return nil
    }

    public mutating func handle(_ event: Event, now: UInt64) -> [Action] {
        switch event {
        case .opened(let viewOnly, let path):
            backoff.succeeded()
            policy.succeeded()
            sessionsOpened += 1
            keyboard = BrowserKeyboard()
            clipboardShared = false  // until the host's hello says it shares one
            connection = .connected(viewOnly: viewOnly || viewOnlyRequested, path: path)
            return []
        case .openFailed(let error):
            return after(policy.after(error), now: now, notice: error.kind.isRejection ? error.message : nil)
        case .ended(let end):
            guard case .connected = connection else { return [] }
            return after(policy.after(end), now: now, notice: nil)
        case .hostHello(let capabilities):
            clipboardShared = clipboardWanted && capabilities.contains(.clipboard)
            return []
        case .hostClipboard(let content):
            guard clipboardShared else { return [] }
            switch clipboardGate.receive(content, now: now) {
            case .write(let content): return content.text.map { [.writeClipboard($0)] } ?? []
            case .offer(let text): return [.notice(text, seconds: 15)]
            case .drop: return []
            }
        case .hostError(let code, let text):
            if code == .clipboardUnavailable { clipboardGate.requestFailed() }
            return code == .clipboardRefused || code == .clipboardUnavailable ? [.notice(TerminalSafeText.sanitized(text), seconds: 4)] : []
        case .takeClipboard:
            guard case .connected = connection, clipboardShared else {
                return [.notice("the host shares no clipboard with this viewer", seconds: 4)]
            }
            clipboardGate.requested(now: now)
            return [.requestClipboard]
        case .browserKey(let pressed, let key, let code, let modifiers):
            guard case .connected(false, _) = connection else { return [] }
            let events = keyboard.translate(pressed: pressed, key: key, code: code, modifiers: modifiers)
            return events.isEmpty ? [] : [.send(events)]
        case .releaseKeys:
            let events = keyboard.releaseAll()
            guard case .connected(false, _) = connection, !events.isEmpty else { return [] }
            return [.send(events)]
        case .monitorLayout(let layout):
            let before = monitorChoice.area
            let gone = monitorChoice.adopt(layout)
            var actions: [Action] = [.monitors(monitorChoice.monitors)]
            if monitorChoice.area != before { actions.append(.show(monitorChoice.area)) }
            if let gone { actions.append(.notice(gone, seconds: 4)) }
            return actions
        case .showMonitor(let index):
            let text = monitorChoice.show(index)
            return [.show(monitorChoice.area), .notice(text, seconds: 4)]
        case .nextMonitor:
            let text = monitorChoice.cycle()
            return [.show(monitorChoice.area), .notice(text, seconds: 4)]
        case .leave(let reason):
            if case .ended = connection { return [] }
            connection = .ended(reason)
            return [.closeSession, .finish(reason)]
        case .tick:
            guard case .waiting(let until, let attempt, _) = connection, now >= until else { return [] }
            connection = .connecting(attempt: attempt)
            return [.open(viewOnly: viewOnlyRequested)]
        }
    }

    /// A session did not open or ended: wait and try again, or stop.
    private mutating func after(_ decision: ReconnectDecision, now: UInt64, notice: String?) -> [Action] {
        switch decision {
        case .stop(let message):
            connection = .ended(message)
            return [.finish(message)]
        case .retry(let reason):
            let attempt: Int
            if case .connecting(let current) = connection { attempt = current + 1 } else { attempt = 1 }
            let delay = backoff.nextDelay()
            let micros = UInt64(delay.components.seconds) * 1_000_000 + UInt64(delay.components.attoseconds / 1_000_000_000_000)
            connection = .waiting(until: now + micros, attempt: attempt, reason: reason)
            return notice.map { [.notice($0, seconds: 8)] } ?? []
        }
    }
}

extension ControllerError.Kind {
    /// A refusal before the host was authenticated (shown for a while: it may be forged).
    var isRejection: Bool {
        if case .rejected = self { return true }
        return false
    }
}
