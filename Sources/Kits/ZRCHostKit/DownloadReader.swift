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

    /// Read ahead of the chunks asked for: one read of the disk per block, not per chunk.
    private var block: [UInt8] = []
    private var taken = 0
    static let blockBytes = 256 * 1024

    func read(_ count: Int) -> Result<[UInt8], FileSystemError> {
        guard let source else { return .failure(FileSystemError(.ioError, "the file is closed")) }
        if taken == block.count {
            let left = source.size - source.position
            do throws(FileSystemError) {
                block = try source.read(Int(min(UInt64(max(count, Self.blockBytes)), left)))
            } catch {
                return .failure(error)
            }
            taken = 0
        }
        let chunk = Array(block[taken..<min(block.count, taken + count)])
        taken += chunk.count
        return .success(chunk)
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
