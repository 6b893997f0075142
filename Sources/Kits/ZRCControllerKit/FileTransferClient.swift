public import ZRCFiles
import ZRCFrames
import ZRCNetworking
public import ZRCProtocol

/// A session's file requests, seen from the controller: listings, uploads paced to what the path
/// takes (`FramePacer`'s filler room, fed by the host's acknowledgements, so input sent meanwhile
/// never waits behind more than the path holds), and downloads written to a part file and checked
/// before they take their name. Every size and name the host sends is treated as untrusted.
public actor FileTransferClient {
    let sendAll: @Sendable ([ZRCMessage]) async -> Bool
    private var hostTransfers: Bool?
    private var terms: FileTerms?
    private var termsWaiters: [CheckedContinuation<FileTerms, any Error>] = []
    private var nextID: UInt32 = 1
    var requests: [UInt32: Request] = [:]
    /// The path as the uploads see it. Its smallest window for file data (64 KiB) suits uploads
    /// as it is: on the dsl laboratory path (10 Mbit/s, 40 ms) while the screen scrolls, paced
    /// 8 KiB chunks (`FillerPacing`) use 92–93 % of the link with it and add nothing measurable
    /// to a click's p95; 56 KiB used 84 %. Unpaced 16 KiB chunks needed 80 KiB for 93 %, and their
    /// bursts put a click's p95 10 ms later (`zrc-bench files-lab`).
    var pacer = FramePacer()
    /// Upload chunks in flight, as the pacer's fillers.
    var fillers = FillerLedger()
    /// When the next upload chunk may leave, on a slow path (all uploads share the path).
    var pacing = FillerPacing()
    var roomWaiters: [CheckedContinuation<Void, Never>] = []
    var ended: FileTransferError?
    /// The ceiling `limitRate` set for transfers (each on its own), if any.
    var rateLimit: TransferRateLimit?
    /// Downloads that took in data since the last `caughtUp`.
    var unacknowledged: Set<UInt32> = []

    enum Request {
        case listing(entries: [FileEntry], waiter: CheckedContinuation<[FileEntry], any Error>)
        case upload(Upload)
        case download(Download)
    }

    struct Upload {
        var ready: CheckedContinuation<FileReady, any Error>?
        var done: CheckedContinuation<Void, any Error>?
        var acknowledged: UInt64 = 0
        var progress: @Sendable (UInt64) -> Void
        /// The host's failure, when it came while the upload was sending (no continuation to
        /// resume): kept for the sending loop to throw.
        var failure: FileTransferError?
    }

    struct Download {
        var part: any DownloadSink
        var ready: CheckedContinuation<FileReady, any Error>?
        var done: CheckedContinuation<Void, any Error>?
        var readyInfo: FileReady?
        var replace: Bool
        var progress: @Sendable (UInt64) -> Void
        /// How it ended, when that came before the download waited for it.
        var outcome: Result<Void, FileTransferError>?
        /// What the host was last told arrived, and when that acknowledgement was made (µs,
        /// monotonic; under a rate limit it is sent later, when the bytes are due).
        var acknowledged: UInt64 = 0
        var acknowledgedMicros: UInt64 = 0
        /// When it was asked for and from which offset: a rate limit counts from there.
        let startedMicros = WireClock.monotonicMicros()
        let startOffset: UInt64
    }

    /// Listings and transfers open now.
    public var openRequestCount: Int { requests.count }

    init(send: @escaping @Sendable ([ZRCMessage]) async -> Bool) {
        self.sendAll = send
    }

    /// Sends one message (false: the session is gone).
    func send(_ message: ZRCMessage) async -> Bool { await sendAll([message]) }

    // MARK: The session's reports

    func hostHello(_ capabilities: Capabilities) {
        hostTransfers = capabilities.contains(.fileTransfer)
        if hostTransfers == false { failTerms(FileTransferError(.refused, "this host does not transfer files (its host.json turns it off, or it is older)")) }
    }

    func sessionEnded(_ text: String) {
        let error = FileTransferError(.connectionLost, "the session ended: \(text)")
        ended = error
        failTerms(error)
        for (id, request) in requests { fail(id, request, error) }
        requests = [:]
        roomWaiters.forEach { $0.resume() }
        roomWaiters = []
    }

    private func failTerms(_ error: FileTransferError) {
        termsWaiters.forEach { $0.resume(throwing: error) }
        termsWaiters = []
    }

    func received(_ message: ZRCMessage) {
        switch message {
        case .fileTerms(let terms):
            self.terms = terms
            termsWaiters.forEach { $0.resume(returning: terms) }
            termsWaiters = []
        case .fileEntries(let id, let final, let page):
            guard case .listing(var entries, let waiter) = requests[id] else { return }
            guard entries.count + page.count <= FileTransferLimits.maxEntriesPerListing else {
                requests[id] = nil
                Task { _ = await send(.fileFailed(requestID: id, code: .cancelled, text: "more than \(FileTransferLimits.maxEntriesPerListing) entries")) }
                waiter.resume(throwing: FileTransferError(.limit, "the listing has more than \(FileTransferLimits.maxEntriesPerListing) entries"))
                return
            }
            entries += page
            if final {
                requests[id] = nil
                waiter.resume(returning: entries)
            } else {
                requests[id] = .listing(entries: entries, waiter: waiter)
            }
        case .fileReady(let ready):
            switch requests[ready.requestID] {
            case .upload(var upload)?:
                upload.ready?.resume(returning: ready)
                upload.ready = nil
                upload.acknowledged = ready.offset
                requests[ready.requestID] = .upload(upload)
            case .download(var download)?:
                download.readyInfo = ready
                download.ready?.resume(returning: ready)
                download.ready = nil
                requests[ready.requestID] = .download(download)
            case .listing?, nil:
                break
            }
        case .fileAck(let id, let offset):
            // Cumulative: the host acknowledges what it wrote, often several chunks at once.
            fillers.acknowledged(request: id, through: offset, pacer: &pacer, now: WireClock.monotonicMicros())
            if case .upload(var upload) = requests[id], offset > upload.acknowledged {
                upload.acknowledged = offset
                upload.progress(offset)
                requests[id] = .upload(upload)
            }
            wakeRoomWaiters()
        case .fileData(let id, let offset, let data):
            receivedData(id, offset: offset, data: data)
        case .fileEnd(let id, let digest):
            guard case .download(var download) = requests[id], let ready = download.readyInfo, download.outcome == nil else { return }
            let outcome: Result<Void, FileTransferError>
            do throws(FileSystemError) {
                try download.part.commit(expected: digest, mode: ready.mode, modifiedMicros: ready.modifiedMicros, replace: download.replace)
                Task { _ = await send(.fileDone(requestID: id)) }
                outcome = .success(())
            } catch {
                Task { _ = await send(.fileFailed(requestID: id, code: error.code, text: error.text)) }
                outcome = .failure(FileTransferError(error))
            }
            if let done = download.done {
                requests[id] = nil
                done.resume(with: outcome)
            } else {
                // A small file can end before the download waits for its end: kept for the wait.
                download.outcome = outcome
                requests[id] = .download(download)
            }
        case .fileDone(let id):
            guard case .upload(let upload) = requests[id] else { return }
            requests[id] = nil
            upload.done?.resume()
        case .fileFailed(let id, let code, let text):
            let error = FileTransferError(.host(code), "the host: \(TerminalSafeText.sanitized(text))")
            if case .download(var download) = requests[id], download.ready == nil, download.done == nil, download.readyInfo != nil {
                // Between its ready and its wait for the end: kept for the wait.
                guard download.outcome == nil else { return }
                download.part.abandon(keep: true)
                download.outcome = .failure(error)
                requests[id] = .download(download)
                return
            }
            if case .upload(var upload) = requests[id], upload.ready == nil, upload.done == nil {
                // While it sends: the loop hears why at its next wait for room.
                upload.failure = upload.failure ?? error
                requests[id] = .upload(upload)
                wakeRoomWaiters()
                return
            }
            guard let request = requests.removeValue(forKey: id) else { return }
            fail(id, request, error)
        default:
            break
        }
    }

    private func receivedData(_ id: UInt32, offset: UInt64, data: [UInt8]) {
        guard case .download(let download) = requests[id], download.readyInfo != nil else { return }
        guard offset == download.part.offset else {
            abortDownload(id, download, FileSystemError(.protocolError, "the host sent data at \(offset), expected \(download.part.offset)"))
            return
        }
        let now: Bool
        do throws(FileSystemError) {
            now = try download.part.take(data)
        } catch {
            abortDownload(id, download, error)
            return
        }
        download.progress(download.part.offset)
        if now { unacknowledged.insert(id) }
    }

    /// Every message of one read was handled: downloads whose data this read brought are
    /// acknowledged when `acknowledges` says so, in one write — one acknowledgement per read, not
    /// per chunk, on a fast path.
    func caughtUp() async {
        guard !unacknowledged.isEmpty else { return }
        var now: [ZRCMessage] = []
        for id in unacknowledged {
            guard case .download(var download) = requests[id], let size = download.readyInfo?.size else { continue }
            let through = download.part.offset
            let clock = WireClock.monotonicMicros()
            guard Self.acknowledges(through: through, size: size, last: (download.acknowledged, download.acknowledgedMicros),
                                    now: clock, limited: rateLimit != nil)
            else { continue }
            download.acknowledged = through
            download.acknowledgedMicros = clock
            requests[id] = .download(download)
            // Under a rate limit the acknowledgement waits until the bytes are due: the host's window
            // then holds its sending to the limit (acknowledgements are cumulative, a late one harmless).
            guard let rateLimit else {
                now.append(.fileAck(requestID: id, offset: through))
                continue
            }
            let due = download.startedMicros + rateLimit.dueMicros(after: through - download.startOffset)
            Task {
                await Self.sleep(untilMicros: due)
                _ = await send(.fileAck(requestID: id, offset: through))
            }
        }
        unacknowledged = []
        if !now.isEmpty { _ = await sendAll(now) }
    }

    /// Returns once the monotonic clock reaches `due` (µs; at once if it has).
    static func sleep(untilMicros due: UInt64) async {
        let now = WireClock.monotonicMicros()
        if due > now { try? await Task.sleep(for: .microseconds(due - now)) }
    }

    /// Holds every later transfer to `limit` (nil: as fast as the path takes).
    public func limitRate(_ limit: TransferRateLimit?) {
        rateLimit = limit
    }

    /// Download bytes between acknowledgements: less than the host's smallest window for file
    /// data (48 KiB on a slow path, `FileTransferDesk.pacedMinimumWindow`), so its chunks never
    /// wait for one.
    static let acknowledgeEveryBytes: UInt64 = 32 * 1024

    /// Download bytes are also acknowledged at the end of a read that brought some once this long
    /// has passed since the last acknowledgement, however few. On a slow path the host paces small
    /// chunks (8 KiB crosses a 10 Mbit/s link in 6.5 ms): waiting for 32 KiB kept up to half the
    /// host's window unacknowledged here, so the path carried only what was left (the file got
    /// 77 % of the dsl laboratory link). On a fast path reads come far more often than this, each
    /// with more than 32 KiB, and nothing changes.
    static let acknowledgeAfterMicros: UInt64 = 2_000

    /// Whether a read that brought a download's data to `through` (of `size`) is acknowledged at
    /// its end, `last` being the previous acknowledgement (offset, µs): 32 KiB or more since it,
    /// the file's end, or — unless a rate limit holds the acknowledgements back anyway, each in a
    /// task of its own until its bytes are due — `acknowledgeAfterMicros` since it.
    static func acknowledges(through: UInt64, size: UInt64, last: (offset: UInt64, micros: UInt64), now: UInt64, limited: Bool) -> Bool {
        guard through > last.offset else { return false }
        return through - last.offset >= acknowledgeEveryBytes || through == size
            || !limited && now &- last.micros >= acknowledgeAfterMicros
    }

    /// A sink took on the bytes before `offset` (it acknowledges itself, `DownloadSink.take`).
    func acknowledgeDownload(_ id: UInt32, through offset: UInt64) async {
        guard case .download = requests[id] else { return }
        _ = await send(.fileAck(requestID: id, offset: offset))
    }

    func abortDownload(_ id: UInt32, _ download: Download, _ error: FileSystemError) {
        requests[id] = nil
        download.part.abandon(keep: error.code != .protocolError && error.code != .noSpace)
        Task { _ = await send(.fileFailed(requestID: id, code: error.code, text: error.text)) }
        let failure = FileTransferError(error)
        download.ready?.resume(throwing: failure)
        download.done?.resume(throwing: failure)
    }

    private func fail(_ id: UInt32, _ request: Request, _ error: FileTransferError) {
        switch request {
        case .listing(_, let waiter):
            waiter.resume(throwing: error)
        case .upload(let upload):
            upload.ready?.resume(throwing: error)
            upload.done?.resume(throwing: error)
        case .download(let download):
            download.part.abandon(keep: true)
            download.ready?.resume(throwing: error)
            download.done?.resume(throwing: error)
        }
    }

    // MARK: Requests

    /// What the host lets this session do; waits for its `fileTerms`.
    public func waitForTerms() async throws -> FileTerms {
        if let terms { return terms }
        if let ended { throw ended }
        if hostTransfers == false { throw FileTransferError(.refused, "this host does not transfer files") }
        return try await withCheckedThrowingContinuation { termsWaiters.append($0) }
    }

    func allocate() -> UInt32 {
        defer { nextID = nextID == UInt32.max ? 1 : nextID + 1 }
        return nextID
    }

    /// The directory at `path` (or, `itself`, the path alone).
    public func list(_ path: RemotePath, itself: Bool = false) async throws -> [FileEntry] {
        _ = try await waitForTerms()
        let id = allocate()
        return try await withCheckedThrowingContinuation { waiter in
            requests[id] = .listing(entries: [], waiter: waiter)
            Task { if await !send(.fileList(requestID: id, itself: itself, path: path.text)) { self.lost(id) } }
        }
    }

    func lost(_ id: UInt32) {
        guard let request = requests.removeValue(forKey: id) else { return }
        fail(id, request, ended ?? FileTransferError(.connectionLost, "the session ended"))
    }

    /// Gives up every open request (Ctrl+C): the host hears `cancelled`; parts stay for `--resume`.
    public func cancelAll() async {
        let open = requests
        requests = [:]
        for (id, request) in open {
            fail(id, request, FileTransferError(.cancelled, "cancelled"))
            _ = await send(.fileFailed(requestID: id, code: .cancelled, text: "cancelled by the controller"))
        }
    }
}
