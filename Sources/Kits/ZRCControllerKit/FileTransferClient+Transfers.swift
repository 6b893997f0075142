public import ZRCFiles
import ZRCFrames
import ZRCNetworking
public import ZRCProtocol

extension FileTransferClient {
    /// Uploads the local file at `localPath` to `remote` (the full remote path, name included).
    /// `progress` hears the bytes the host has written. With `resume`, a part the host kept is
    /// checked (its digest against this file's first bytes) and only the rest is sent; a part that
    /// differs is dropped and the file sent whole.
    public func upload(localPath: String, to remote: RemotePath, replace: Bool, resume: Bool,
                       progress: @escaping @Sendable (UInt64) -> Void) async throws {
        let terms = try await waitForTerms()
        guard terms.directions.contains(.upload) else { throw FileTransferError(.refused, refusal(terms, "uploads")) }
        let source: LocalUploadSource
        do throws(FileSystemError) {
            source = try LocalUploadSource(localPath: localPath, maxBytes: terms.maxFileBytes)
        } catch {
            throw FileTransferError(error)
        }
        do {
            try await upload(source, to: remote, replace: replace, resume: resume, progress: progress)
            await source.close()
        } catch let error as FileTransferError where error.kind == .host(.integrity) && resume {
            // The host's part is not this file's beginning: it was dropped; send the file whole.
            await source.close()
            return try await upload(localPath: localPath, to: remote, replace: replace, resume: false, progress: progress)
        } catch {
            await source.close()
            throw error
        }
    }

    /// Uploads what `source` gives to `remote`; with `resume`, a kept part whose digest differs
    /// from the source's first bytes fails the request with `host(.integrity)` (the host drops it).
    public func upload(_ source: any UploadSource, to remote: RemotePath, replace: Bool, resume: Bool,
                       progress: @escaping @Sendable (UInt64) -> Void) async throws {
        let terms = try await waitForTerms()
        guard terms.directions.contains(.upload) else { throw FileTransferError(.refused, refusal(terms, "uploads")) }
        guard source.size <= terms.maxFileBytes else {
            throw FileTransferError(.host(.tooLarge), "\(source.size) bytes is more than the host's \(terms.maxFileBytes) per file")
        }
        var flags: FileOpen.Flags = replace ? [.replace] : []
        if resume { flags.insert(.resume) }
        let id = allocate()
        // Chunks of an upload that ended otherwise than by its last acknowledgement (cancelled,
        // failed) must not hold the path's room for the next one.
        defer { pacer.discardFillers(fillers.forget(request: id)) }
        let open = FileOpen(requestID: id, direction: .upload, flags: flags, path: remote.text, size: source.size, mode: source.mode,
                            modifiedMicros: source.modifiedMicros)
        let ready: FileReady = try await withCheckedThrowingContinuation { waiter in
            requests[id] = .upload(Upload(ready: waiter, progress: progress))
            Task { if await !send(.fileOpen(open)) { self.lost(id) } }
        }
        if ready.offset > 0 {
            let prefix: [UInt8]
            do throws(FileSystemError) {
                prefix = try await source.skip(to: ready.offset)
            } catch {
                await cancel(id, error.text)
                throw FileTransferError(error)
            }
            guard prefix == ready.prefixDigest else {
                await cancel(id, "the kept part differs from this file")
                throw FileTransferError(.host(.integrity), "the part the host kept of \(remote) differs from this file")
            }
        }
        progress(ready.offset)
        var offset = ready.offset
        // Whether the host keeps the part if this upload stops partway (`cancel`).
        let keepPart = source.keepsPartWhenStopped
        // The receiver's largest chunk, or smaller on a slow path (chosen as each block is read).
        let chunkLimit = Int(terms.maxChunkBytes)
        // Read in blocks of chunks: one trip to the source per block, not per chunk. The next
        // block is read (and hashed) while this one is sealed and sent, on another thread when
        // there is a core for it.
        var block: [[UInt8]] = []
        var taken = 0
        var readAhead: Task<Result<[[UInt8]], FileSystemError>, Never>?
        // An upload that ends early leaves no read waiting on its source (a browser's pipe waits
        // for the page's next bytes).
        defer { readAhead?.cancel() }
        let started = (micros: WireClock.monotonicMicros(), offset: offset)
        while offset < source.size {
            if let rateLimit { await Self.sleep(untilMicros: started.micros + rateLimit.dueMicros(after: offset - started.offset)) }
            let next = taken < block.count ? block[taken].count : Int(min(UInt64(chunkLimit), source.size - offset))
            let wire = next + Self.chunkOverhead
            try await waitForRoom(id, bytes: wire)
            if let departure = pacedDeparture(bytes: wire) {
                // A slow path: the chunk waits for its time, then for room again (another
                // transfer may have taken it meanwhile).
                await Self.sleep(untilMicros: departure)
                // A cancelled task's sleep returns at once: it must not spin here until the time.
                if Task.isCancelled {
                    await cancel(id, "cancelled", keepPart: keepPart)
                    throw FileTransferError(.cancelled, "cancelled")
                }
                continue
            }
            if taken == block.count {
                let reading = readAhead ?? Self.readBlock(of: source, from: offset, inChunksOf: chunkBytes(limit: chunkLimit))
                readAhead = nil
                switch await reading.value {
                case .success(let next): block = next
                case .failure(let error):
                    await cancel(id, error.text, keepPart: keepPart)
                    throw FileTransferError(error)
                }
                taken = 0
                guard !block.isEmpty else {
                    await cancel(id, "the file ended early", keepPart: keepPart)
                    throw FileTransferError(.local(.changed), "\(remote): the file ended before its \(source.size) bytes")
                }
                let after = offset + block.reduce(0) { $0 + UInt64($1.count) }
                if after < source.size { readAhead = Self.readBlock(of: source, from: after, inChunksOf: chunkBytes(limit: chunkLimit)) }
            }
            // As many chunks as the room takes, from this block, in one write.
            var batch: [ZRCMessage] = []
            repeat {
                let data = block[taken]
                taken += 1
                let end = offset + UInt64(data.count)
                let now = WireClock.monotonicMicros()
                fillers.sent(request: id, end: end, bytes: data.count + Self.chunkOverhead, pacer: &pacer, now: now)
                pacing.sent(bytes: data.count + Self.chunkOverhead, rate: pacingRate, now: now)
                batch.append(.fileData(requestID: id, offset: offset, data: data))
                offset = end
            } while taken < block.count && batch.count < Self.chunksPerWrite && pacer.fillerRoom >= block[taken].count + Self.chunkOverhead
                && rateLimit == nil && pacedDeparture(bytes: block[taken].count + Self.chunkOverhead) == nil
            guard await sendAll(batch) else {
                lost(id)
                throw ended ?? FileTransferError(.connectionLost, "the session ended")
            }
        }
        let digest: [UInt8]
        do throws(FileSystemError) {
            digest = try await source.finish()
        } catch {
            await cancel(id, error.text, keepPart: keepPart)
            throw FileTransferError(error)
        }
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            guard case .upload(var upload) = requests[id] else {
                waiter.resume(throwing: ended ?? FileTransferError(.connectionLost, "the request ended"))
                return
            }
            if let failure = upload.failure {
                requests[id] = nil
                waiter.resume(throwing: failure)
                return
            }
            upload.done = waiter
            requests[id] = .upload(upload)
            Task { if await !send(.fileEnd(requestID: id, digest: digest)) { self.lost(id) } }
        }
    }

    /// Bytes read from an upload's source at once.
    static let readBlockBytes = 256 * 1024

    /// Starts reading the block at `offset` (the source reads in order: it must start where the
    /// last one ended).
    private static func readBlock(of source: any UploadSource, from offset: UInt64, inChunksOf chunk: Int)
        -> Task<Result<[[UInt8]], FileSystemError>, Never> {
        let count = Int(min(UInt64(readBlockBytes), source.size - offset))
        return Task { () async -> Result<[[UInt8]], FileSystemError> in
            do throws(FileSystemError) {
                return .success(try await source.read(count, inChunksOf: chunk))
            } catch {
                return .failure(error)
            }
        }
    }
    /// Chunks sent in one write at most (a trip through the connection and one system call each
    /// time, not per chunk; a buffer of about 100 KiB, reused by the allocator rather than mapped
    /// afresh page by page as larger ones were); the pacer's room bounds them first.
    static let chunksPerWrite = 6
    /// A chunk's bytes on the wire beyond its data: the message's fields, a record's header and tag.
    static let chunkOverhead = 48

    /// The rate uploads are paced by: the path's, while samples of it keep coming. Without recent
    /// ones (after a stall, a last sample can be far below the path) chunks go unpaced, as
    /// the window lets them, until the acknowledgements measure the path again.
    private var pacingRate: Double? { pacer.recentDeliveryRate(now: WireClock.monotonicMicros()) }

    /// Data bytes per chunk for the next block read: smaller on a paced path.
    private func chunkBytes(limit: Int) -> Int {
        FillerPacing.chunkBytes(limit: limit, rate: pacingRate)
    }

    /// When a chunk of `bytes` (on the wire) may leave, if pacing holds it (nil: now).
    private func pacedDeparture(bytes: Int) -> UInt64? {
        let now = WireClock.monotonicMicros()
        let departure = pacing.departure(bytes: bytes, rate: pacingRate, now: now)
        return departure > now ? departure : nil
    }

    /// Waits until the path has room for another chunk (or the request ended: then throws).
    private func waitForRoom(_ id: UInt32, bytes: Int) async throws {
        while true {
            guard case .upload(let upload) = requests[id] else { throw ended ?? FileTransferError(.connectionLost, "the request ended") }
            if let failure = upload.failure {
                requests[id] = nil
                throw failure
            }
            if pacer.fillerRoom >= bytes { return }
            await withCheckedContinuation { roomWaiters.append($0) }
        }
    }

    func wakeRoomWaiters() {
        let waiters = roomWaiters
        roomWaiters = []
        waiters.forEach { $0.resume() }
    }

    /// Downloads `remote` into `directory` as `name` (the directory is the part's from then on,
    /// closed with it). `size` is what a listing said; the host's answer must agree.
    public func download(_ remote: RemotePath, into directory: ConfinedDirectory, as name: FileName, size: UInt64, replace: Bool,
                         resume: Bool, progress: @escaping @Sendable (UInt64) -> Void) async throws {
        let terms = try await waitForTerms()
        guard terms.directions.contains(.download) else {
            directory.close()
            throw FileTransferError(.refused, refusal(terms, "downloads"))
        }
        guard size <= FileTransferLimits.maxFileBytes else {
            directory.close()
            throw FileTransferError(.host(.tooLarge), "the host announces \(size) bytes for \(remote), more than \(FileTransferLimits.maxFileBytes)")
        }
        let part: FilePart
        do throws(FileSystemError) {
            part = try FilePart(name, in: directory, size: size, resume: resume, replace: replace)
        } catch {
            throw FileTransferError(error)
        }
        try await download(remote, to: part, size: size, replace: replace, resume: resume, progress: progress)
    }

    /// Downloads `remote` into `part` (which the client owns from then on). `size` is what a
    /// listing said; the host's answer must agree.
    public func download(_ remote: RemotePath, to part: sending any DownloadSink, size: UInt64, replace: Bool, resume: Bool,
                         progress: @escaping @Sendable (UInt64) -> Void) async throws {
        let terms = try await waitForTerms()
        guard terms.directions.contains(.download) else {
            part.abandon(keep: false)
            throw FileTransferError(.refused, refusal(terms, "downloads"))
        }
        let id = allocate()
        part.acknowledge { [weak self] offset in
            guard let self else { return }
            Task { await self.acknowledgeDownload(id, through: offset) }
        }
        var flags: FileOpen.Flags = replace ? [.replace] : []
        if resume { flags.insert(.resume) }
        let open = FileOpen(requestID: id, direction: .download, flags: flags, path: remote.text, offset: part.offset)
        let kept = (offset: part.offset, digest: part.prefixDigest)
        requests[id] = .download(Download(part: part, ready: nil, replace: replace, progress: progress, startOffset: part.offset))
        let ready: FileReady = try await withCheckedThrowingContinuation { waiter in
            guard case .download(var download) = requests[id] else {
                waiter.resume(throwing: ended ?? FileTransferError(.connectionLost, "the request ended"))
                return
            }
            download.ready = waiter
            requests[id] = .download(download)
            Task { if await !send(.fileOpen(open)) { self.lost(id) } }
        }
        guard ready.size == size, ready.offset == kept.offset, ready.offset == 0 || ready.prefixDigest == kept.digest else {
            if case .download(let download) = requests.removeValue(forKey: id) { download.part.abandon(keep: false) }
            _ = await send(.fileFailed(requestID: id, code: .cancelled, text: "the file changed since it was listed, or the kept part differs"))
            throw FileTransferError(.host(.changed), "\(remote) changed on the host since it was listed (or the kept part differs); try again")
        }
        progress(ready.offset)
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            guard case .download(var download) = requests[id] else {
                waiter.resume(throwing: ended ?? FileTransferError(.connectionLost, "the request ended"))
                return
            }
            if let outcome = download.outcome {
                requests[id] = nil
                waiter.resume(with: outcome.mapError { $0 as any Error })
                return
            }
            download.done = waiter
            requests[id] = .download(download)
        }
    }

    /// Ends request `id` from this side; an upload's part stays on the host unless `keepPart` is
    /// false (`discarded`).
    private func cancel(_ id: UInt32, _ why: String, keepPart: Bool = true) async {
        requests[id] = nil
        _ = await send(.fileFailed(requestID: id, code: keepPart ? .cancelled : .discarded, text: why))
    }

    private func refusal(_ terms: FileTerms, _ what: String) -> String {
        terms.directions.isEmpty ? "the host lets this session transfer no files (view-only, or file transfer is off there)"
            : "the host does not allow \(what)"
    }
}

/// Why a transfer failed, for the commands' messages and exit codes.
public struct FileTransferError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The host refused or failed it, with the protocol's code.
        case host(FileErrorCode)
        /// Something on this side (the local file system), with the protocol's code.
        case local(FileErrorCode)
        case refused
        case connectionLost
        case cancelled
        case limit
    }

    public let kind: Kind
    public let text: String

    public init(_ kind: Kind, _ text: String) {
        self.kind = kind
        self.text = text
    }

    init(_ error: FileSystemError) {
        self.init(.local(error.code), error.text)
    }

    public var description: String { text }
}

extension FileTransferClient {
    /// Creates the remote directory `path` (and missing parents).
    public func makeDirectory(_ path: RemotePath, mode: UInt16 = 0o755) async throws {
        let terms = try await waitForTerms()
        guard terms.directions.contains(.upload) else { throw FileTransferError(.refused, "the host does not allow uploads") }
        let id = allocate()
        let open = FileOpen(requestID: id, direction: .makeDirectory, path: path.text, mode: mode)
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            requests[id] = .upload(Upload(ready: nil, done: waiter, progress: { _ in }))
            Task { if await !send(.fileOpen(open)) { self.lost(id) } }
        }
    }
}
