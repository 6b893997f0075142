import ZRCFiles
import ZRCProtocol

/// One download's reads, off the session driver: opened (and a resumed prefix hashed) and read
/// here, so a slow disk delays only this download's chunks.
actor DownloadReader {
    private var source: FileSource?

    func open(_ open: FileOpen, path: RemotePath, sharing: FileSharing) -> Result<FileReady, FileSystemError> {
        do {
            let source = try FileSource(path, in: sharing.root, maxBytes: sharing.maxFileBytes)
            let offset = open.flags.contains(.resume) ? min(open.offset, source.size) : 0
            let prefix = offset > 0 ? try source.skip(to: offset) : Array(repeating: 0, count: FileTransferLimits.digestBytes)
            self.source = source
            return .success(FileReady(requestID: open.requestID, size: source.size, mode: source.mode, modifiedMicros: source.modifiedMicros,
                                      offset: offset, prefixDigest: prefix))
        } catch {
            return .failure(error)
        }
    }

    /// One read of the file per chunk, straight into the chunk (the kernel's read-ahead keeps the
    /// disk's reads large; a block read here and copied out chunk by chunk cost a copy more).
    func read(_ count: Int) -> Result<[UInt8], FileSystemError> {
        guard let source else { return .failure(FileSystemError(.ioError, "the file is closed")) }
        return Result { () throws(FileSystemError) in try source.read(count) }
    }

    func finish() -> Result<[UInt8], FileSystemError> {
        guard let source else { return .failure(FileSystemError(.ioError, "the file is closed")) }
        return Result { () throws(FileSystemError) in try source.finish() }
    }

    func close() {
        source?.close()
        source = nil
    }
}
