import Glibc
public import ZRCProtocol
public import ZRCSodium

/// A regular file open for sending: read in order from an offset, hashed as it goes, and checked
/// at the end against what it was when opened (size and modification time), so a file that
/// changes while it is read is reported, never sent as a mix of old and new.
public final class FileSource {
    public let size: UInt64
    public let mode: UInt16
    public let modifiedMicros: Int64
    public let shownPath: String
    private let descriptor: Int32
    private let opened: stat
    private let digest = FileDigest()
    /// Where the next read starts.
    public private(set) var position: UInt64 = 0
    private var closed = false
    /// Reads with O_DIRECT through this block, when asked for and the file system allows it.
    private var directBlock: DirectReadBlock?

    /// Opens `path` beneath `directory`: a regular file only (opened non-blocking first, so a FIFO
    /// cannot hang the open), at most `maxBytes`. `direct`: read with O_DIRECT where the file
    /// system allows it (`DirectReadBlock`), not through the page cache.
    public convenience init(_ path: RemotePath, in directory: ConfinedDirectory, maxBytes: UInt64, direct: Bool = false) throws(FileSystemError) {
        let descriptor = try directory.open(path, flags: O_RDONLY | O_NONBLOCK | O_NOCTTY)
        try self.init(descriptor: descriptor, shownPath: directory.shown(path), maxBytes: maxBytes)
        if direct { directBlock = DirectReadBlock(descriptor: descriptor) }
    }

    /// Whether reads bypass the page cache (O_DIRECT).
    public var readsDirect: Bool { directBlock != nil }

    /// Opens a local file the user named (no confinement: the user chose it), the same checks.
    public convenience init(localPath: String, maxBytes: UInt64) throws(FileSystemError) {
        let descriptor = Glibc.open(localPath, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileSystemError.errno(Glibc.errno, "open", localPath) }
        try self.init(descriptor: descriptor, shownPath: localPath, maxBytes: maxBytes)
    }

    private init(descriptor: Int32, shownPath: String, maxBytes: UInt64) throws(FileSystemError) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = Glibc.errno
            _ = Glibc.close(descriptor)
            throw FileSystemError.errno(code, "stat", shownPath)
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            _ = Glibc.close(descriptor)
            let what = status.st_mode & S_IFMT == S_IFDIR ? "a directory" : "not a regular file"
            throw FileSystemError(.notRegularFile, "\(shownPath) is \(what)")
        }
        guard UInt64(status.st_size) <= maxBytes else {
            _ = Glibc.close(descriptor)
            throw FileSystemError(.tooLarge, "\(shownPath) has \(status.st_size) bytes, more than the \(maxBytes) allowed")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        self.descriptor = descriptor
        self.shownPath = shownPath
        opened = status
        size = UInt64(status.st_size)
        mode = UInt16(status.st_mode & 0o777)
        modifiedMicros = FileTimes.micros(status.st_mtim)
        posix_fadvise(descriptor, 0, 0, POSIX_FADV_SEQUENTIAL)
    }

    deinit { close() }

    public func close() {
        guard !closed else { return }
        closed = true
        // A block's read may be under way on the reader's queue, from this descriptor.
        directBlock?.settle()
        _ = Glibc.close(descriptor)
    }

    /// The digest of the first `count` bytes (a resumed transfer's prefix); reading goes on from there.
    public func skip(to count: UInt64) throws(FileSystemError) -> [UInt8] {
        precondition(position == 0, "skip only at the start")
        var left = min(count, size)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        while left > 0 {
            left -= UInt64(try readSome(into: buffer, at: 0, max: Int(min(left, UInt64(buffer.count)))))
        }
        return digest.copy().finish()
    }

    /// Up to `count` bytes from the current position (fewer only at the end of the file), read
    /// straight into the array returned (no zeroing first, no copy after).
    public func read(_ count: Int) throws(FileSystemError) -> [UInt8] {
        // A read started ahead may come after the close: the descriptor's number may be reused.
        guard !closed else { throw FileSystemError(.cancelled, "\(shownPath) was closed") }
        let wanted = Int(min(UInt64(count), size - min(size, position)))
        var failure: FileSystemError?
        let bytes = [UInt8](unsafeUninitializedCapacity: wanted) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            var filled = 0
            while filled < wanted, failure == nil {
                do throws(FileSystemError) {
                    filled += try readSome(into: raw, at: filled, max: wanted - filled)
                } catch {
                    failure = error
                }
            }
            initialized = filled
        }
        if let failure { throw failure }
        return bytes
    }

    /// One pread of at most `max` bytes into `buffer` at `index`, hashed; the position moves on.
    private func readSome(into buffer: UnsafeMutableRawBufferPointer, at index: Int, max: Int) throws(FileSystemError) -> Int {
        while true {
            if let block = directBlock {
                switch block.read(into: buffer.baseAddress! + index, max: max, at: position) {
                case .copied(let got):
                    guard got > 0 else { throw FileSystemError(.changed, "\(shownPath) became shorter while it was being read") }
                    digest.update(UnsafeRawBufferPointer(rebasing: buffer[index..<(index + got)]))
                    position += UInt64(got)
                    return got
                case .refused:
                    block.settle()
                    DirectReadBlock.stop(descriptor)
                    directBlock = nil
                    continue
                case .failed(let code):
                    throw FileSystemError.errno(code, "read", shownPath)
                }
            }
            let got = pread(descriptor, buffer.baseAddress! + index, max, off_t(position))
            if got < 0 {
                if Glibc.errno == EINTR { continue }
                throw FileSystemError.errno(Glibc.errno, "read", shownPath)
            }
            guard got > 0 else { throw FileSystemError(.changed, "\(shownPath) became shorter while it was being read") }
            digest.update(UnsafeRawBufferPointer(rebasing: buffer[index..<(index + got)]))
            position += UInt64(got)
            return got
        }
    }

    /// After the last byte: the file's digest, or `changed` when its size or modification time is
    /// not what it was when opened.
    public func finish() throws(FileSystemError) -> [UInt8] {
        var now = stat()
        guard fstat(descriptor, &now) == 0 else { throw FileSystemError.errno(Glibc.errno, "stat", shownPath) }
        guard now.st_size == opened.st_size, now.st_mtim.tv_sec == opened.st_mtim.tv_sec, now.st_mtim.tv_nsec == opened.st_mtim.tv_nsec
        else { throw FileSystemError(.changed, "\(shownPath) changed while it was being read") }
        return digest.finish()
    }
}
