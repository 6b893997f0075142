public import ZRCProtocol

/// What the person at the host sees of the live sessions: a window on the shared screen (the
/// X11 one in the executable), and key combinations that end them all or answer a session's
/// request for approval.
public protocol SessionIndicator: Sendable {
    /// Shows `sessions` (none: hidden).
    func show(_ sessions: [IndicatedSession]) async
    /// What the person at the host pressed, as it happens.
    var requests: AsyncStream<IndicatorRequest> { get }
    func stop() async
}

/// A combination the person at the host pressed.
public enum IndicatorRequest: Sendable, Equatable {
    /// End every session (and refuse every request).
    case endAll
    /// Accept the oldest session waiting for approval.
    case accept
    /// Refuse the oldest session waiting for approval.
    case refuse
}

/// The combinations as the indicator names them (`Ctrl+Alt+Shift+End`).
public struct IndicatorKeys: Sendable, Equatable {
    public struct Approval: Sendable, Equatable {
        public var accept: String
        public var refuse: String

        public init(accept: String, refuse: String) {
            self.accept = accept
            self.refuse = refuse
        }
    }

    public var end: String
    /// Accept and refuse (nil: sessions need no approval).
    public var approval: Approval?

    public init(end: String, approval: Approval? = nil) {
        self.end = end
        self.approval = approval
    }
}

/// One session as the indicator names it: live, or waiting for the person at the host.
public struct IndicatedSession: Sendable, Equatable {
    public var controllerName: String
    public var viewOnly: Bool
    /// It waits for approval (it is not live yet).
    public var awaitingApproval: Bool
    /// Files it is sending to this machine now.
    public var arriving: [ArrivingFile]

    public init(controllerName: String, viewOnly: Bool, awaitingApproval: Bool = false, arriving: [ArrivingFile] = []) {
        self.controllerName = controllerName
        self.viewOnly = viewOnly
        self.awaitingApproval = awaitingApproval
        self.arriving = arriving
    }

    /// A file a controller is uploading, as the person at the host sees it.
    public struct ArrivingFile: Sendable, Equatable {
        /// Where it lands, beneath the transfer root.
        public var path: String
        public var size: UInt64
        public var written: UInt64

        public init(path: String, size: UInt64, written: UInt64) {
            self.path = path
            self.size = size
            self.written = written
        }

        var shown: String {
            let percent = size == 0 ? 100 : Int(written * 100 / size)
            return "\(TerminalSafeText.sanitized(path)) (\(percent)% of \(ByteCount.text(size)))"
        }
    }

    /// The indicator's lines for `sessions`: the oldest request for approval first, with the
    /// keys that answer it, then the live sessions and the combination that ends them.
    public static func lines(for sessions: [IndicatedSession], keys: IndicatorKeys) -> [String] {
        var lines: [String] = []
        let waiting = sessions.filter(\.awaitingApproval)
        if let first = waiting.first, let approval = keys.approval {
            lines.append("ZRC: \(TerminalSafeText.sanitized(first.controllerName)) asks to \(first.viewOnly ? "watch" : "control") this screen")
            let more = waiting.count > 1 ? " (\(waiting.count - 1) more waiting)" : ""
            lines.append("Press \(approval.accept) to accept, \(approval.refuse) to refuse\(more)")
        }
        let live = sessions.filter { !$0.awaitingApproval }
        guard !live.isEmpty else { return lines }
        let names = live.map { "\(TerminalSafeText.sanitized($0.controllerName)) (\($0.viewOnly ? "view-only" : "in control"))" }
        let head = live.count == 1 ? "ZRC: \(names[0]) is connected to this screen"
            : "ZRC: \(live.count) sessions on this screen: " + names.joined(separator: ", ")
        // What arrives is said, so nobody at the host is surprised by a file in their Downloads.
        let arriving = live.flatMap { session in session.arriving.map { "\(TerminalSafeText.sanitized(session.controllerName)) sends \($0.shown)" } }
        let files = arriving.isEmpty ? [] : ["Receiving: " + arriving.prefix(3).joined(separator: ", ") + (arriving.count > 3 ? ", …" : "")]
        return lines + [head] + files + ["Press \(keys.end) to end \(live.count == 1 ? "it" : "them all")"]
    }
}

/// An input sink that never presses a reserved combination for a controller: the keys the person
/// at the host ends sessions with stay theirs. Tracks the modifiers held through the controllers'
/// own key events (the X server's state is one for all sessions) as well as each event's flags.
public actor ReservedKeyFilter: InputSink {
    private let inner: any InputSink
    private let reserved: [KeyCombo]
    private var heldModifiers: [UInt32: KeyModifiers] = [:]
    /// Reserved keys whose press was dropped: their release is dropped too.
    private var swallowed: Set<UInt32> = []

    public init(_ inner: any InputSink, reserved: [KeyCombo]) {
        self.inner = inner
        self.reserved = reserved
    }

    static let modifierKeys: [UInt32: KeyModifiers] = [
        0xFFE1: .shift, 0xFFE2: .shift, 0xFFE3: .control, 0xFFE4: .control, 0xFFE9: .alt, 0xFFEA: .alt,
        0xFFE7: .alt, 0xFFE8: .alt, 0xFFEB: .super, 0xFFEC: .super,
    ]

    public func inject(_ event: InputEvent) async throws {
        if case .key(let keysym, let pressed, let modifiers) = event {
            if let modifier = Self.modifierKeys[keysym] {
                heldModifiers[keysym] = pressed ? modifier : nil
            } else if pressed {
                let held = heldModifiers.values.reduce(modifiers) { $0.union($1) }
                if reserved.contains(where: { Self.same($0.keysym, keysym) && held.isSuperset(of: $0.modifiers) }) {
                    swallowed.insert(keysym)
                    return
                }
            } else if swallowed.remove(keysym) != nil {
                return
            }
        }
        try await inner.inject(event)
    }

    public func releaseAll() async {
        heldModifiers = [:]
        swallowed = []
        await inner.releaseAll()
    }

    /// Letters match in either case (shift makes the keysym upper case).
    static func same(_ a: UInt32, _ b: UInt32) -> Bool {
        func folded(_ keysym: UInt32) -> UInt32 { (0x41...0x5A).contains(keysym) ? keysym + 0x20 : keysym }
        return folded(a) == folded(b)
    }
}
