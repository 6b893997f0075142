public import Logging
public import ZRCHostKit
import ZRCNetworking
public import ZRCProtocol
import ZRCX11

/// The host's session indicator on its X display: `X11Indicator` on a connection of its own,
/// driven by this actor, with the end-sessions combination (and, when sessions need approval, the
/// accept and refuse combinations) grabbed on the root window.
public actor X11SessionIndicator: SessionIndicator {
    private let indicator: X11Indicator
    private let keys: IndicatorKeys
    private let logger: Logger
    private let wakeUp = SocketReadiness.WakeUp()
    public nonisolated let requests: AsyncStream<IndicatorRequest>
    private let requestSink: AsyncStream<IndicatorRequest>.Continuation
    private var loop: Task<Void, Never>?

    /// Connects to `displayName` (`cookie` as for `X11Connection`) and grabs `endKey` there, and
    /// `approvalKeys` when given.
    public init(displayName: String?, cookie: [UInt8]? = nil, endKey: String, approvalKeys: IndicatorKeys.Approval? = nil,
                logger: Logger) throws {
        indicator = try X11Indicator(displayName: displayName, cookie: cookie)
        try indicator.grab(try KeyCombo(parsing: endKey), index: 0)
        if let approvalKeys {
            try indicator.grab(try KeyCombo(parsing: approvalKeys.accept), index: 1)
            try indicator.grab(try KeyCombo(parsing: approvalKeys.refuse), index: 2)
        }
        keys = IndicatorKeys(end: Self.displayed(endKey),
                             approval: approvalKeys.map { .init(accept: Self.displayed($0.accept), refuse: Self.displayed($0.refuse)) })
        self.logger = logger
        // Every press counts (each answers one request), but a flood of them is bounded.
        (requests, requestSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(16))
    }

    public func show(_ sessions: [IndicatedSession]) {
        indicator.show(IndicatedSession.lines(for: sessions, keys: keys))
        startIfNeeded()
        wakeUp.fire()
    }

    public func stop() async {
        let running = loop
        loop = nil
        running?.cancel()
        await running?.value
        indicator.show([])
        requestSink.finish()
    }

    private func startIfNeeded() {
        guard loop == nil else { return }
        loop = Task { await self.run() }
    }

    private func run() async {
        while !Task.isCancelled {
            do {
                for event in try indicator.processEvents() {
                    switch event {
                    case .combination(0): requestSink.yield(.endAll)
                    case .combination(1): requestSink.yield(.accept)
                    case .combination(2): requestSink.yield(.refuse)
                    case .combination: break
                    }
                }
            } catch {
                logger.error("the session indicator stopped: \(error)")
                requestSink.finish()
                return
            }
            await SocketReadiness.wait(fileDescriptor: indicator.fileDescriptor, timeout: .seconds(10), wakeUp: wakeUp)
        }
    }

    /// `ctrl+alt+shift+End` as people read it: `Ctrl+Alt+Shift+End`.
    static func displayed(_ combination: String) -> String {
        combination.split(separator: "+").map { part in
            switch part.lowercased() {
            case "ctrl", "control": "Ctrl"
            case "alt": "Alt"
            case "shift": "Shift"
            case "super", "win", "meta": "Super"
            default: part.prefix(1).uppercased() + part.dropFirst()
            }
        }.joined(separator: "+")
    }
}
