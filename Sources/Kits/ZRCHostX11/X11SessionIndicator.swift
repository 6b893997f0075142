public import Logging
public import ZRCHostKit
import ZRCNetworking
public import ZRCProtocol
import ZRCX11

/// The host's session indicator on its X display: `X11Indicator` on a connection of its own,
/// driven by this actor, with the end-sessions combination grabbed on the root window.
public actor X11SessionIndicator: SessionIndicator {
    private let indicator: X11Indicator
    private let endKey: String
    private let logger: Logger
    private let wakeUp = SocketReadiness.WakeUp()
    public nonisolated let endRequests: AsyncStream<Void>
    private let endSink: AsyncStream<Void>.Continuation
    private var loop: Task<Void, Never>?

    /// Connects to `displayName` (`cookie` as for `X11Connection`) and grabs `endKey` there.
    public init(displayName: String?, cookie: [UInt8]? = nil, endKey: String, logger: Logger) throws {
        indicator = try X11Indicator(displayName: displayName, cookie: cookie)
        try indicator.grab(try KeyCombo(parsing: endKey), index: 0)
        self.endKey = endKey
        self.logger = logger
        (endRequests, endSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    public func show(_ sessions: [IndicatedSession]) {
        indicator.show(IndicatedSession.lines(for: sessions, endKey: Self.displayed(endKey)))
        startIfNeeded()
        wakeUp.fire()
    }

    public func stop() async {
        let running = loop
        loop = nil
        running?.cancel()
        await running?.value
        indicator.show([])
        endSink.finish()
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
                    case .combination: endSink.yield()
                    }
                }
            } catch {
                logger.error("the session indicator stopped: \(error)")
                endSink.finish()
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
