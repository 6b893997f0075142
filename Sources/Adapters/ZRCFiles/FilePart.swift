internal import CFileSystem
import Glibc
public import ZRCProtocol
public import ZRCSodium

/// A file being received: its data goes to a part file beside the target (mode 0600, named after
/// the target so a resumed transfer finds it), hashed as it is written; at the end it is synced,
/// checked against the sender's digest, given its mode (without setuid, setgid and sticky) and
/// modification time, and renamed into place — never over an existing file unless asked. Until
/// then the target is untouched: a failure leaves at most the part, for `--resume`.
public final class FilePart {
    public let target: FileName
    public let size: UInt64
    /// Bytes already in the part (where the next write goes).
    public private(set) var offset: UInt64
    /// BLAKE2b of the part's bytes kept from an earlier transfer (zeros when none was kept).
    public let prefixDigest: [UInt8]
    public let shownPath: String
    private let directory: ConfinedDirectory
    private let partName: String
    private let descriptor: Int32
    private let digest: FileDigest
    private var closed = false
    /// Writes the data half a megabyte at a time (two buffers taking turns), with direct I/O where
    /// the file system allows it.
    private let writer: StagedFileWriter

    /// The part file's name for `target`: hidden, and short whatever the target's length.
    public static func partName(for target: FileName) -> String {
        ".zrc-" + Hex.encode(FileDigest.of(Array(target.text.utf8)).prefix(12)) + ".part"
    }

    /// Opens the part for `target` in `directory` (which the part then owns and closes). `resume`
    /// keeps what an earlier transfer left (up to `size`); `replace` allows an existing target.
    /// Checks first that the target may be written and that the device has room for the rest.
    public init(_ target: FileName, in directory: ConfinedDirectory, size: UInt64, resume: Bool, replace: Bool) throws(FileSystemError) {
        self.target = target
        self.size = size
        self.directory = directory
        shownPath = directory.shown(target)
        partName = Self.partName(for: target)
        var existing = stat()
        if fstatat(directory.descriptor, target.text, &existing, AT_SYMLINK_NOFOLLOW) == 0 {
            if existing.st_mode & S_IFMT == S_IFDIR {
                directory.close()
                throw FileSystemError(.notRegularFile, "\(shownPath) is a directory")
            }
            if !replace {
                directory.close()
                throw FileSystemError(.exists, "\(shownPath) already exists (replace it with --force)")
            }
        }
        // Not truncated at open: another transfer may still hold it (below).
        let flags = O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC
        let descriptor = openat(directory.descriptor, partName, flags, 0o600)
        guard descriptor >= 0 else {
            let code = Glibc.errno
            directory.close()
            throw FileSystemError.errno(code, "create", shownPath)
        }
        self.descriptor = descriptor
        var status = stat()
        // A part planted by someone else (another owner, a hard link to another file) is not ours to write.
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid(), status.st_nlink == 1 else {
            _ = Glibc.close(descriptor)
            directory.close()
            throw FileSystemError(.permissionDenied, "\(directory.shown(RemotePath.root))/\(partName) is not a part file this user made")
        }
        // One writer per part: a transfer resumed right after its controller was killed waits
        // (5 s at most) for the old session's writer, which may still be ending, to let go.
        var attempts = 0
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            attempts += 1
            guard Glibc.errno == EWOULDBLOCK, attempts < 100 else {
                _ = Glibc.close(descriptor)
                directory.close()
                throw FileSystemError(.limit, "\(shownPath) is being written by another transfer")
            }
            usleep(50_000)
        }
        if !resume { _ = ftruncate(descriptor, 0) }
        _ = fstat(descriptor, &status)  // what the writer before left, now that it is done
        var kept = resume ? UInt64(max(0, status.st_size)) : 0
        if kept > size {
            kept = 0
            _ = ftruncate(descriptor, 0)
        }
        offset = 0
        // Room for what is still to come, before a byte of it is written.
        var volume = statvfs()
        if fstatvfs(descriptor, &volume) == 0 {
            let free = UInt64(volume.f_bavail) &* UInt64(volume.f_frsize)
            if free < size - kept {
                // An empty part made just now goes again: a refused transfer leaves nothing behind.
                if kept == 0 { unlinkat(directory.descriptor, partName, 0) }
                _ = Glibc.close(descriptor)
                directory.close()
                throw FileSystemError(.noSpace, "\(shownPath): not enough space on the device (\(size - kept) bytes to write, \(free) free)")
            }
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var hashed: UInt64 = 0
        let digest = FileDigest()
        self.digest = digest
        while hashed < kept {
            let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, Int(min(UInt64(1 << 20), kept - hashed)), off_t(hashed)) }
            guard got > 0 else { break }
            buffer.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0.prefix(got))) }
            hashed += UInt64(got)
        }
        offset = hashed
        if hashed != UInt64(max(0, status.st_size)) { _ = ftruncate(descriptor, off_t(hashed)) }
        writer = StagedFileWriter(descriptor: descriptor, from: hashed, expected: size - hashed, shownPath: shownPath)
        prefixDigest = hashed == 0 ? Array(repeating: 0, count: FileDigest.length) : digest.copy().finish()
    }

    deinit {
        // A part dropped without a commit or an abandon keeps what arrived, as it would had each
        // chunk been written at once.
        if !closed { try? writer.flush() }
        close()
    }

    private func close() {
        guard !closed else { return }
        closed = true
        // A buffer's write may still be under way on the writer's queue, into this descriptor.
        writer.settle()
        _ = Glibc.close(descriptor)
        directory.close()
    }

    /// Whether the data goes to the device without the page cache (O_DIRECT), as it does where
    /// the file system allows it.
    public var bypassesPageCache: Bool { writer.direct }

    /// Writes `data` where the last write ended.
    public func write(_ data: [UInt8]) throws(FileSystemError) {
        guard offset + UInt64(data.count) <= size else {
            throw FileSystemError(.protocolError, "\(shownPath): data beyond the announced \(size) bytes")
        }
        // `withUnsafeBytes` rethrows untyped: the error comes out as a value.
        let failure: FileSystemError? = data.withUnsafeBytes { bytes in
            do throws(FileSystemError) {
                try writer.write(bytes)
                return nil
            } catch { return error }
        }
        if let failure { throw failure }
        digest.update(data)
        offset += UInt64(data.count)
    }

    /// All data is in: syncs, checks `expected` (the sender's digest), sets mode and time, renames
    /// into place and syncs the directory. A digest that differs removes the part (its bytes are
    /// wrong, so resuming from them would be too).
    public func commit(expected: [UInt8], mode: UInt16, modifiedMicros: Int64, replace: Bool) throws(FileSystemError) {
        defer { close() }
        guard offset == size else { throw FileSystemError(.protocolError, "\(shownPath): \(offset) of \(size) bytes arrived") }
        guard digest.finish() == expected else {
            unlinkat(directory.descriptor, partName, 0)
            throw FileSystemError(.integrity, "\(shownPath): the data's BLAKE2b differs from the sender's; nothing was written")
        }
        try writer.flush()
        guard fsync(descriptor) == 0 else { throw FileSystemError.errno(Glibc.errno, "fsync", shownPath) }
        // Permission bits only: a copy never makes a setuid, setgid or sticky file.
        guard fchmod(descriptor, mode_t(mode & 0o777)) == 0 else { throw FileSystemError.errno(Glibc.errno, "chmod", shownPath) }
        var times = [timespec(tv_sec: 0, tv_nsec: zrc_utime_omit), FileTimes.timespec(micros: modifiedMicros)]
        guard futimens(descriptor, &times) == 0 else { throw FileSystemError.errno(Glibc.errno, "utimens", shownPath) }
        if replace {
            guard renameat(directory.descriptor, partName, directory.descriptor, target.text) == 0 else {
                throw FileSystemError.errno(Glibc.errno, "rename", shownPath)
            }
        } else if zrc_rename_noreplace(directory.descriptor, partName, directory.descriptor, target.text) != 0 {
            let code = Glibc.errno
            guard code == EINVAL || code == ENOSYS else {
                throw code == EEXIST ? FileSystemError(.exists, "\(shownPath) appeared meanwhile; it was left as it is (replace it with --force)")
                    : FileSystemError.errno(code, "rename", shownPath)
            }
            // A file system without RENAME_NOREPLACE: a hard link fails just as atomically when the name exists.
            guard linkat(directory.descriptor, partName, directory.descriptor, target.text, 0) == 0 else {
                throw FileSystemError.errno(Glibc.errno, "link", shownPath)
            }
            unlinkat(directory.descriptor, partName, 0)
        }
        _ = fsync(directory.descriptor)
    }

    /// The transfer failed or was cancelled: the part stays for `--resume` when `keep`, else it goes.
    public func abandon(keep: Bool) {
        // What arrived is kept whole for a resume; a write failing now leaves a shorter part,
        // which a resume hashes and continues from all the same.
        if !closed, keep { try? writer.flush() }
        if !closed, !keep { unlinkat(directory.descriptor, partName, 0) }
        close()
    }
}
