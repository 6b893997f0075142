public import Logging
public import ZRCHostKit
import ZRCNetworking
public import ZRCProtocol
import ZRCX11

/// The host's X selections as its `ClipboardBridge`: an actor driving `X11Clipboard` on an X
/// connection of its own, so selection traffic never waits behind captures.
///
/// A change by another X client is read at once and reported on `changes()`; the text read is
/// kept until the next change, so a session asking for it (`read`) costs no round trip to the
/// owner (a failed read is not kept: the next request tries again). What a session sets, this
/// client owns and serves to every X client (INCR beyond 64 KiB). Text only, at most
/// `WireLimits.maxClipboardBytes`; text that is not UTF-8 is refused both ways.
public actor X11ClipboardBridge: ClipboardBridge {
    private let clipboard: X11Clipboard
    private let logger: Logger
    private let wakeUp = SocketReadiness.WakeUp()
    private let stream: AsyncStream<ClipboardContent>
    private let changeSink: AsyncStream<ClipboardContent>.Continuation
    /// The text read since the owner last changed, per selection.
    private var known: [ClipboardSelection: ClipboardContent] = [:]
    private var waiters: [ClipboardSelection: [UInt64: CheckedContinuation<ClipboardContent, any Error>]] = [:]
    private var nextWaiter: UInt64 = 0
    /// Reads started by an owner change: their text is reported on `changes()`.
    private var readsForChanges: Set<ClipboardSelection> = []
    private var loop: Task<Void, Never>?
    /// Why the bridge no longer works (stopped, or its X connection broke); nil while it does.
    private var failure: String?

    /// Connects to `displayName` (nil: `$DISPLAY`; `cookie` as for `X11Connection`) and watches `selections`.
    public init(displayName: String?, cookie: [UInt8]? = nil, selections: Set<ClipboardSelection>, logger: Logger) throws {
        let connection = try X11Connection(displayName: displayName, cookie: cookie)
        clipboard = try X11Clipboard(connection: connection, selections: selections.sorted { $0.rawValue < $1.rawValue }.map(Self.x11),
                                     maximumBytes: WireLimits.maxClipboardBytes)
        self.logger = logger
        (stream, changeSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(4))
    }

    /// Starts handling X events; call once.
    public func start() {
        guard loop == nil else { return }
        loop = Task { await self.run() }
    }

    /// Stops handling X events and ends `changes()`; later reads and writes fail.
    public func stop() async {
        let running = loop
        loop = nil
        running?.cancel()
        await running?.value
        shutDown("the host is shutting down")
    }

    public nonisolated func changes() -> AsyncStream<ClipboardContent> { stream }

    public func read(_ selection: ClipboardSelection) async throws -> ClipboardContent {
        if let failure { throw ClipboardUnavailable(failure) }
        if let text = clipboard.ownedText(Self.x11(selection)) { return ClipboardContent(selection: selection, mimeType: ClipboardContent.utf8Text, data: text) }
        if let content = known[selection] { return content }
        defer { wakeUp.fire() }  // the reply wait may have queued events
        guard try clipboard.hasOwner(Self.x11(selection)) else {
            throw ClipboardUnavailable("it is empty (no application on the host holds it)")
        }
        let id = nextWaiter
        nextWaiter += 1
        // Cancellable: a session that ends stops waiting for a slow owner.
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiters[selection, default: [:]][id] = continuation
                clipboard.read(Self.x11(selection), nowMicros: WireClock.monotonicMicros())
                wakeUp.fire()
            }
        } onCancel: {
            Task { await self.cancelWaiter(id, selection) }
        }
    }

    private func cancelWaiter(_ id: UInt64, _ selection: ClipboardSelection) {
        waiters[selection]?.removeValue(forKey: id)?.resume(throwing: CancellationError())
    }

    public func write(_ content: ClipboardContent) async throws {
        if let failure { throw ClipboardUnavailable(failure) }
        guard content.text != nil else { throw ClipboardUnavailable("the clipboard takes UTF-8 text only") }
        defer { wakeUp.fire() }  // GetSelectionOwner's reply wait may have queued events
        try clipboard.own(Self.x11(content.selection), text: content.data)
    }

    private func run() async {
        while !Task.isCancelled {
            do {
                for event in try clipboard.processEvents(nowMicros: WireClock.monotonicMicros()) { handle(event) }
            } catch {
                logger.error("the clipboard stopped: \(error)")
                shutDown("the host's clipboard stopped working (\(error))")
                return
            }
            if clipboard.hasQueuedEvents {
                await Task.yield()  // a flood of events: the rest next, after other work
                continue
            }
            // Pending transfers expire on a timer; otherwise only X events matter.
            let busy = clipboard.hasReads || clipboard.hasTransfers
            await SocketReadiness.wait(fileDescriptor: clipboard.fileDescriptor, timeout: busy ? .milliseconds(250) : .seconds(10),
                                       wakeUp: wakeUp)
        }
    }

    /// No more reads or writes: every waiter is told why, and `changes()` ends.
    private func shutDown(_ reason: String) {
        failure = failure ?? reason
        changeSink.finish()
        for (_, list) in waiters { list.values.forEach { $0.resume(throwing: ClipboardUnavailable(reason)) } }
        waiters = [:]
    }

    private func handle(_ event: X11Clipboard.Event) {
        switch event {
        case .ownerChanged(let selection):
            let shared = Self.shared(selection)
            known[shared] = nil
            readsForChanges.insert(shared)
            clipboard.read(selection, nowMicros: WireClock.monotonicMicros())
        case .readFinished(let selection, let text, _):
            let shared = Self.shared(selection)
            let content = ClipboardContent(selection: shared, mimeType: ClipboardContent.utf8Text, data: text)
            if content.text == nil {
                finishRead(shared, .failure(ClipboardUnavailable("its owner's text is not valid UTF-8")))
            } else if text.count > WireLimits.maxClipboardBytes {
                finishRead(shared, .failure(ClipboardUnavailable("it holds more than the \(WireLimits.maxClipboardBytes) bytes shared")))
            } else {
                finishRead(shared, .success(content))
            }
        case .readFailed(let selection, let reason):
            finishRead(Self.shared(selection), .failure(ClipboardUnavailable(reason)))
        case .ownershipLost:
            break  // the new owner's change follows as ownerChanged
        }
    }

    private func finishRead(_ selection: ClipboardSelection, _ outcome: Result<ClipboardContent, ClipboardUnavailable>) {
        if case .success(let content) = outcome { known[selection] = content }
        for waiter in (waiters.removeValue(forKey: selection) ?? [:]).values { waiter.resume(with: outcome.mapError { $0 as any Error }) }
        guard readsForChanges.remove(selection) != nil else { return }
        switch outcome {
        case .success(let content): changeSink.yield(content)
        case .failure(let reason): logger.info("the host's \(selection) changed but is not shared: \(reason)")
        }
    }

    static func x11(_ selection: ClipboardSelection) -> X11Clipboard.Selection {
        switch selection {
        case .clipboard: .clipboard
        case .primary: .primary
        }
    }

    static func shared(_ selection: X11Clipboard.Selection) -> ClipboardSelection {
        switch selection {
        case .clipboard: .clipboard
        case .primary: .primary
        }
    }
}
