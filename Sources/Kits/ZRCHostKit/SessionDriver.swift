import Logging
import ZRCHostCore
import ZRCNetworking
import ZRCProtocol

/// Drives one session's `HostSessionMachine`: feeds it the controller's messages, the screen's
/// damage and the clock, and performs what it asks — one loop and one timer for the whole session,
/// from the hello deadline to the end.
actor SessionDriver {
    let flow: SessionFlow
    let logger: Logger
    var machine: HostSessionMachine
    var connection: SecureConnection?
    /// The screen, once streaming started (nil: before the hello, or a controller that takes no frames).
    private var screen: ScreenStreamer?
    private var loop: Task<Void, Never>?
    /// The loop waiting for an event, and the timer that ends the wait.
    private var waiter: CheckedContinuation<Void, Never>?
    private var timer: Task<Void, Never>?
    /// An event came while the loop was busy: its next wait for events returns at once.
    private var eventPending = false
    /// Clipboard reads under way beside the message loop (at most `clipboardPerSecond` start a second).
    private var besideTasks: [UInt64: Task<Void, Never>] = [:]
    private var nextBeside: UInt64 = 0
    /// Open file transfers' disk work.
    var uploads: [UInt32: UploadWriter] = [:]
    /// Uploads as the host's indicator shows them, and when it was last told.
    var arriving: [UInt32: (file: IndicatedSession.ArrivingFile, told: ContinuousClock.Instant)] = [:]
    var downloads: [UInt32: DownloadReader] = [:]

    init(flow: SessionFlow, policy: HostSessionMachine.Policy, logger: Logger) {
        self.flow = flow
        self.logger = logger
        machine = HostSessionMachine(policy: policy, now: WireClock.monotonicMicros())
    }

    /// Whether this session held control (its end releases what it pressed).
    var hasControl: Bool { machine.hasControl }

    /// The connection is up (our hello is on its way): the loop starts, with the hello deadline.
    func start(_ connection: SecureConnection) {
        guard self.connection == nil else { return }
        self.connection = connection
        loop = Task { await run(connection) }
    }

    /// The person at the host answered this session's request for approval.
    func approvalAnswered(_ accepted: Bool) async {
        await perform(machine.approvalAnswered(accepted: accepted, now: WireClock.monotonicMicros()))
        wake()
    }

    /// A message from the controller, handled before the next is read.
    func received(_ message: ZRCMessage) async {
        await perform(machine.received(message, now: WireClock.monotonicMicros()))
        if HostSessionMachine.mayChangeSchedule(message) { wake() }
    }

    /// Stops the loop and the work beside it and waits for them, so nothing captures or reads the
    /// clipboard for the session after it ended.
    func stop() async {
        await perform(machine.filesEnded())
        machine.connectionEnded()
        await flow.server.withdrawApproval(sessionID: flow.sessionID)
        let beside = besideTasks.values
        besideTasks = [:]
        for task in beside { task.cancel() }
        for task in beside { await task.value }
        let running = loop
        loop = nil
        running?.cancel()
        wake()
        await running?.value
        screen = nil
        let open = uploads.values
        uploads = [:]
        for upload in open { await upload.finish(keepPart: true) }
        for download in downloads.values { await download.close() }
        downloads = [:]
    }

    // MARK: The loop

    private func run(_ connection: SecureConnection) async {
        while !Task.isCancelled, await connection.isOpen {
            await perform(machine.tick(now: WireClock.monotonicMicros(), stream: screen?.status ?? .init()))
            guard !Task.isCancelled else { return }
            switch machine.nextWake(now: WireClock.monotonicMicros(), stream: screen?.status ?? .init()) {
            case .screen(let until):
                guard let screen else {
                    await waitForEvent(until: until)  // never asked without a screen
                    continue
                }
                if await screen.waitForChange(timeout: Self.duration(until: until)) { machine.screenChanged() }
            case .events(let until, let glance):
                await waitForEvent(until: until)
                if glance, let screen, await screen.waitForChange(timeout: .zero) { machine.screenChanged() }
            }
        }
    }

    private static func duration(until: UInt64) -> Duration {
        let now = WireClock.monotonicMicros()
        return .microseconds(Int64(clamping: until > now ? until - now : 0))
    }

    /// Waits for `wake()` or until `until` (nil: no deadline). The one timer of the session.
    private func waitForEvent(until: UInt64?) async {
        guard !eventPending, !Task.isCancelled else {
            eventPending = false
            return
        }
        await withCheckedContinuation { continuation in
            waiter = continuation
            if let until {
                let wait = Self.duration(until: until)
                timer = Task { [weak self] in
                    guard (try? await Task.sleep(for: wait)) != nil else { return }
                    await self?.wake()
                }
            }
        }
        timer?.cancel()
        timer = nil
    }

    /// Something the machine may act on happened: the loop looks again.
    func wake() {
        guard let waiter else {
            eventPending = true
            return
        }
        self.waiter = nil
        waiter.resume()
    }

    // MARK: Actions

    func perform(_ actions: [HostSessionAction]) async {
        var index = 0
        while index < actions.count {
            // A run of download chunks goes in one write (one trip through the connection).
            // Chunks and a file's end come only from `machine.tick`, which only the run loop calls,
            // each tick's actions performed before the next: though this actor is reentrant, no
            // two calls carrying a download's data ever interleave, so they leave in file order.
            var chunks: [(id: UInt32, offset: UInt64, count: Int)] = []
            while index < actions.count, case .sendFileData(let id, let offset, let count) = actions[index] {
                chunks.append((id, offset, count))
                index += 1
            }
            if !chunks.isEmpty {
                if let connection { await sendFileData(chunks, connection: connection) }
                continue
            }
            await perform(actions[index])
            index += 1
        }
    }

    private func perform(_ action: HostSessionAction) async {
        guard let connection else { return }
        switch action {
        case .begin(let capabilities, let agent):
            await begin(capabilities: capabilities, agent: agent, connection: connection)
        case .askApproval(let viewOnly):
            await flow.server.requestApproval(sessionID: flow.sessionID, controllerName: flow.controllerName, viewOnly: viewOnly) {
                [weak self] accepted in await self?.approvalAnswered(accepted)
            }
        case .inject(let event):
            await inject(event)
        case .acknowledgeFrame(let frameID):
            screen?.acknowledge(frameID)
        case .showPicture(let request):
            screen?.show(request)
        case .setClipboard(let content):
            await setClipboard(content)
        case .readClipboard(let selection):
            readClipboard(selection, connection: connection)
        case .followPointer:
            guard let screen else { return }
            do {
                let followed = try await screen.followPointer()
                machine.pointerFollowed(shown: followed.shown, moved: followed.moved, now: WireClock.monotonicMicros())
            } catch {
                await streamingFailed(error)
            }
        case .readMonitors:
            do {
                try await screen?.readMonitors()
            } catch {
                await streamingFailed(error)
            }
        case .probe(let id, let sentAt):
            try? await connection.send(.ping(id: id, sentAtMicros: sentAt))
        case .capture(let plan):
            guard let screen else { return }
            do {
                guard let sent = try await screen.capture(plan) else { return }
                await perform(machine.sent(frameID: sent.frameID, wireBytes: sent.wireBytes, pixels: sent.pixels, credited: plan.credited,
                                           now: sent.sendMicros))
            } catch {
                await streamingFailed(error)
            }
        case .reportLink(let stats, let toPeer):
            flow.link.update(stats)
            if toPeer { try? await connection.send(.linkStats(stats)) }
        case .send(let message):
            try? await connection.send(message)
        case .close(let reason, let text):
            await connection.close(reason: reason, text: text)
        case .listFiles(let id, let path, let itself):
            listFiles(id, path: path, itself: itself, connection: connection)
        case .openFile(let id, let open, let path):
            openFile(id, open: open, path: path)
        case .writeFile(let id, let data):
            uploads[id]?.send(.data(data))
        case .commitFile(let id, let digest):
            uploads[id]?.send(.commit(digest: digest))
        case .sendFileData(let id, let offset, let count):
            await sendFileData([(id, offset, count)], connection: connection)
        case .endFile(let id):
            await endFile(id, connection: connection)
        case .closeFile(let id, let outcome):
            await closeFile(id, outcome: outcome)
        }
    }

    /// Screen work failed: the session closes, unless it closed meanwhile (a frame on its way
    /// when it ended is no failure of the host).
    private func streamingFailed(_ error: any Error) async {
        guard let connection, await connection.isOpen else {
            logger.debug("screen streaming ended with the connection: \(error)")
            return
        }
        logger.error("screen streaming stopped: \(error)")
        await perform(machine.close(.internalError, text: "the host could not capture or encode its screen"))
    }

    /// The controller's hello: the flow claims control and registers the session; frames start
    /// when both sides can draw them.
    private func begin(capabilities: Capabilities, agent: String, connection: SecureConnection) async {
        let now = WireClock.monotonicMicros()
        switch await flow.claimControl(viewOnlyGrant: machine.policy.viewOnlyGrant) {
        case .notClaimed:
            break
        case .granted:
            machine.controlGranted()
        case .taken(let demote):
            await perform(machine.controlRefused(demote: demote, now: now))
            guard demote else { return }
        }
        switch await flow.establish(connection: connection, capabilities: capabilities, agent: agent, viewOnly: machine.isViewOnly,
                                    mayUseClipboard: machine.mayUseClipboard) {
        case .refused(let reason, let text):
            await perform(machine.close(reason, text: text))
        case .established(nil):
            break
        case .established(let streamer?):
            screen = streamer
            machine.startStreaming(streamer.settings)
        }
        await perform(machine.filesBegin())
    }

    private func inject(_ event: InputEvent) async {
        guard let input = flow.input else { return }
        do {
            try await input.inject(event)
        } catch {
            logger.warning("input not injected: \(error)")
            await perform(machine.notice(.untypeable, "the host could not inject that input: \(error)", now: WireClock.monotonicMicros()))
        }
    }

    private func setClipboard(_ content: ClipboardContent) async {
        guard let clipboard = flow.clipboard else { return }
        do {
            try await clipboard.bridge.write(content)
            await flow.clipboardChanged(content)
        } catch {
            logger.warning("the clipboard was not set: \(error)")
            await perform(machine.notice(.clipboardRefused, "the host could not set its \(content.selection): \(error)",
                                         now: WireClock.monotonicMicros()))
        }
    }

    /// Runs `body` beside the message loop, cancelled and awaited when the session ends.
    func beside(_ body: @escaping @Sendable () async -> Void) {
        let id = nextBeside
        nextBeside += 1
        besideTasks[id] = Task {
            await body()
            self.besideEnded(id)
        }
    }

    private func besideEnded(_ id: UInt64) { besideTasks[id] = nil }

    /// Beside the message loop: an application slow to hand over its text must not hold up the
    /// session's pings, acks and input. Cancelled when the session ends.
    private func readClipboard(_ selection: ClipboardSelection, connection: SecureConnection) {
        guard let clipboard = flow.clipboard else { return }
        let id = nextBeside
        nextBeside += 1
        besideTasks[id] = Task {
            do {
                try await connection.send(.clipboard(try await clipboard.bridge.read(selection)))
            } catch is CancellationError {
            } catch {
                await perform(machine.notice(.clipboardUnavailable, "the host's \(selection) has no text to send: \(error)",
                                             now: WireClock.monotonicMicros()))
            }
            besideTasks[id] = nil
        }
    }
}
