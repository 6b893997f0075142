import Logging
import ZRCFiles
import ZRCHostCore
import ZRCNetworking
import ZRCProtocol

/// The session's file work: listings and opens beside the loop, upload writes in each upload's
/// own task (`UploadWriter`), download reads in each download's reader; reports go back to the
/// machine, which decides what is sent.
extension SessionDriver {
    var files: FileSharing? { flow.server.configuration.files }

    func listFiles(_ id: UInt32, path: RemotePath, itself: Bool, connection: SecureConnection) {
        guard let files else { return }
        beside { [weak self] in
            do throws(FileSystemError) {
                let entries = itself ? [try files.root.describe(path)] : try files.root.list(path, limit: FileTransferLimits.maxEntriesPerListing)
                var start = 0
                repeat {
                    let page = Array(entries[start..<min(entries.count, start + FileTransferLimits.maxEntriesPerMessage)])
                    start += page.count
                    try? await connection.send(.fileEntries(requestID: id, final: start >= entries.count, entries: page))
                } while start < entries.count
            } catch {
                try? await connection.send(.fileFailed(requestID: id, code: error.code, text: error.text))
            }
            await self?.listingEnded(id)
        }
    }

    private func listingEnded(_ id: UInt32) {
        machine.listingEnded(id)
    }

    func openFile(_ id: UInt32, open: FileOpen, path: RemotePath) {
        guard let files else { return }
        switch open.direction {
        case .upload:
            arriving[id] = (IndicatedSession.ArrivingFile(path: path.text, size: open.size, written: 0), .now)
            uploads[id] = UploadWriter(open: open, path: path, sharing: files) { [weak self] report in
                await self?.uploadReported(id, report)
            }
        case .makeDirectory:
            guard let connection else { return }
            beside { [weak self] in
                do throws(FileSystemError) {
                    try files.root.makeDirectories(path, mode: UInt32(open.mode & 0o777 | 0o700))
                    try? await connection.send(.fileDone(requestID: id))
                } catch {
                    try? await connection.send(.fileFailed(requestID: id, code: error.code, text: error.text))
                }
                await self?.listingEnded(id)
            }
        case .download:
            let reader = DownloadReader()
            downloads[id] = reader
            beside { [weak self] in
                let opened = await reader.open(open, path: path, sharing: files)
                await self?.downloadOpened(id, opened)
            }
        }
    }

    private func uploadReported(_ id: UInt32, _ report: UploadWriter.Report) async {
        switch report {
        case .ready(let ready):
            await tellIndicator(id, written: ready.offset, force: true)
            await perform(machine.fileReady(ready))
        case .written(let through, let count):
            await tellIndicator(id, written: through, force: false)
            await perform(machine.fileWritten(id, through: through, count: count))
        case .committed:
            logger.notice("file received: request \(id)")
            await perform(machine.fileCommitted(id))
        case .failed(let error, let keep):
            await perform(machine.fileFailed(id, error.code, error.text, keepPart: keep))
        }
        wake()
    }

    private func downloadOpened(_ id: UInt32, _ opened: Result<FileReady, FileSystemError>) async {
        switch opened {
        case .success(let ready): await perform(machine.fileReady(ready))
        case .failure(let error): await perform(machine.fileFailed(id, error.code, error.text, keepPart: false))
        }
        wake()
    }

    /// Reads `chunks` (in the order planned) and sends them in one write.
    func sendFileData(_ chunks: [(id: UInt32, offset: UInt64, count: Int)], connection: SecureConnection) async {
        var messages: [ZRCMessage] = []
        var sent: [(id: UInt32, end: UInt64, bytes: Int)] = []
        // One trip to a download's reader for each run of its chunks.
        var index = 0
        while index < chunks.count {
            let id = chunks[index].id
            var end = index + 1
            while end < chunks.count, chunks[end].id == id { end += 1 }
            let run = chunks[index..<end]
            index = end
            guard let reader = downloads[id] else { continue }
            for (chunk, result) in zip(run, await reader.read(run.map(\.count))) {
                switch result {
                case .success(let data):
                    messages.append(.fileData(requestID: chunk.id, offset: chunk.offset, data: data))
                    sent.append((chunk.id, chunk.offset + UInt64(data.count), data.count + FileTransferDesk.chunkOverhead))
                case .failure(let error):
                    await perform(machine.fileFailed(chunk.id, error.code, error.text, keepPart: false))
                }
            }
        }
        // A few chunks per write: a buffer of megabytes (a fast path's whole window) would be
        // fresh memory the kernel maps page by page each time, and a frame sealed after it waits
        // for all of it.
        var start = 0
        while start < messages.count {
            let group = messages[start..<min(messages.count, start + Self.chunksPerWrite)]
            guard (try? await connection.sendAll(group)) != nil else { return }
            let now = WireClock.monotonicMicros()
            for chunk in sent[start..<(start + group.count)] { machine.fileChunkSent(chunk.id, end: chunk.end, wireBytes: chunk.bytes, now: now) }
            start += group.count
        }
    }

    /// Download chunks sealed into one buffer at most (about 100 KiB).
    static let chunksPerWrite = 6

    func endFile(_ id: UInt32, connection: SecureConnection) async {
        guard let reader = downloads[id] else { return }
        switch await reader.finish() {
        case .success(let digest): try? await connection.send(.fileEnd(requestID: id, digest: digest))
        case .failure(let error): await perform(machine.fileFailed(id, error.code, error.text, keepPart: false))
        }
    }

    /// The indicator hears of an arriving file when it starts, then about once a second.
    private func tellIndicator(_ id: UInt32, written: UInt64, force: Bool) async {
        guard var entry = arriving[id] else { return }
        entry.file.written = written
        let now = ContinuousClock.now
        let tell = force || now - entry.told >= .seconds(1)
        if tell { entry.told = now }
        arriving[id] = entry
        if tell { await flow.server.fileArriving(sessionID: flow.sessionID, id: id, entry.file) }
    }

    func closeFile(_ id: UInt32, outcome: FileOutcome) async {
        if arriving.removeValue(forKey: id) != nil { await flow.server.fileArriving(sessionID: flow.sessionID, id: id, nil) }
        if let upload = uploads.removeValue(forKey: id) {
            switch outcome {
            case .done: await upload.finish(keepPart: false)
            case .failed(let keep), .cancelled(let keep): await upload.finish(keepPart: keep)
            }
        }
        if let download = downloads.removeValue(forKey: id) { await download.close() }
        if outcome != .done { logger.info("file request \(id) ended: \(outcome)") }
    }
}
