import ZRCFiles
import ZRCProtocol

/// One download's reads, off the session driver: opened (and a resumed prefix hashed) and read
/// here (with O_DIRECT where the file system allows it: `DirectReadBlock`), so a slow disk delays
/// only this download's chunks. Chunks are read (and hashed) ahead of the driver's asks, several
/// at a time, so the file's reading and hashing run on another thread while the driver seals the
/// chunks before them.
actor DownloadReader {
    private var source: FileSource?
    /// Chunks read ahead, in file order (a failure ends them: it is the answer for its place).
    private var ahead: [Result<[UInt8], FileSystemError>] = []
    /// The chunk size the driver asks for (the last ask's count); read-ahead reads that much.
    private var chunkBytes = 0
    private var filling = false
    /// A read failed: nothing more is read ahead (the download is ending).
    private var failed = false

    /// Chunks read ahead at most (512 KiB with 16 KiB chunks); reading goes on when half of them
    /// are taken, so one wake-up reads several, and the driver still has chunks to seal while
    /// the next direct read's block (1 MiB) comes from the disk.
    static let aheadChunks = 32
    /// Chunks read in one turn on the actor before the driver's asks may go first (about 0.1 ms).
    static let chunksPerTurn = 4

    func open(_ open: FileOpen, path: RemotePath, sharing: FileSharing) -> Result<FileReady, FileSystemError> {
        do {
            let source = try FileSource(path, in: sharing.root, maxBytes: sharing.maxFileBytes, direct: true)
            let offset = open.flags.contains(.resume) ? min(open.offset, source.size) : 0
            let prefix = offset > 0 ? try source.skip(to: offset) : Array(repeating: 0, count: FileTransferLimits.digestBytes)
            self.source = source
            return .success(FileReady(requestID: open.requestID, size: source.size, mode: source.mode, modifiedMicros: source.modifiedMicros,
                                      offset: offset, prefixDigest: prefix))
        } catch {
            return .failure(error)
        }
    }

    /// The next `count` bytes of the file (fewer only at its end): a chunk read ahead, or read now.
    func read(_ count: Int) -> Result<[UInt8], FileSystemError> {
        guard let source else { return .failure(FileSystemError(.ioError, "the file is closed")) }
        chunkBytes = count
        let result: Result<[UInt8], FileSystemError>
        if !ahead.isEmpty {
            result = takeAhead(count)
        } else {
            result = Result { () throws(FileSystemError) in try source.read(count) }
        }
        if case .failure = result { failed = true }
        if ahead.count <= Self.aheadChunks / 2 { fillLater() }
        return result
    }

    /// Several chunks in one trip to the reader (a driver's run of chunks of this download); a
    /// failure ends the list.
    func read(_ counts: [Int]) -> [Result<[UInt8], FileSystemError>] {
        var results: [Result<[UInt8], FileSystemError>] = []
        results.reserveCapacity(counts.count)
        for count in counts {
            let result = read(count)
            results.append(result)
            if case .failure = result { break }
        }
        return results
    }

    /// `count` bytes from the chunks read ahead: the next chunk as it is when its size is the
    /// one asked (always, as the driver asks a steady size), else pieced together.
    private func takeAhead(_ count: Int) -> Result<[UInt8], FileSystemError> {
        let first = ahead.removeFirst()
        guard case .success(var bytes) = first, bytes.count != count else { return first }
        if bytes.count > count {
            ahead.insert(.success(Array(bytes[count...])), at: 0)
            return .success(Array(bytes[..<count]))
        }
        while bytes.count < count, !ahead.isEmpty {
            let next = ahead.removeFirst()
            guard case .success(let data) = next else { return next }
            let wanted = count - bytes.count
            bytes += data.prefix(wanted)
            if data.count > wanted { ahead.insert(.success(Array(data[wanted...])), at: 0) }
        }
        if bytes.count < count, let source, source.position < source.size {
            do throws(FileSystemError) { bytes += try source.read(count - bytes.count) } catch { return .failure(error) }
        }
        return .success(bytes)
    }

    private func fillLater() {
        guard !filling, !failed, let source, source.position < source.size else { return }
        filling = true
        Task { await self.fill() }
    }

    /// Reads ahead a few chunks per turn on the actor: between turns the driver's asks go first,
    /// so it never waits for a whole fill.
    private func fill() async {
        while let source, ahead.count < Self.aheadChunks, chunkBytes > 0, source.position < source.size {
            if case .failure = ahead.last { break }
            let count = Int(min(UInt64(chunkBytes), source.size - source.position))
            ahead.append(Result { () throws(FileSystemError) in try source.read(count) })
            if ahead.count % Self.chunksPerTurn == 0 { await Task.yield() }
        }
        filling = false
    }

    /// How many chunks are held ahead (for tests: it must stay within `aheadChunks`).
    var chunksAhead: Int { ahead.count }

    func finish() -> Result<[UInt8], FileSystemError> {
        guard let source else { return .failure(FileSystemError(.ioError, "the file is closed")) }
        return Result { () throws(FileSystemError) in try source.finish() }
    }

    func close() {
        source?.close()
        source = nil
        ahead = []
    }
}
