internal import CFileSystem
import Glibc
public import ZRCProtocol

extension ConfinedDirectory {
    /// The entries of the directory at `path` (not `.` and `..`), as `lstat` sees them (a symbolic
    /// link is listed as one, never followed). More than `limit` entries is an error, so a huge
    /// directory costs at most `limit` entries of memory.
    public func list(_ path: RemotePath, limit: Int) throws(FileSystemError) -> [FileEntry] {
        let descriptor = try open(path, flags: O_RDONLY | O_DIRECTORY)
        guard let stream = fdopendir(descriptor) else {
            let code = Glibc.errno
            _ = Glibc.close(descriptor)
            throw FileSystemError.errno(code, "opendir", shown(path))
        }
        defer { closedir(stream) }
        var entries: [FileEntry] = []
        while true {
            Glibc.errno = 0
            guard let item = readdir(stream) else {
                if Glibc.errno != 0 { throw FileSystemError.errno(Glibc.errno, "readdir", shown(path)) }
                break
            }
            let name = withUnsafeBytes(of: item.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
            if name == [0x2E] || name == [0x2E, 0x2E] { continue }
            guard entries.count < limit else {
                throw FileSystemError(.limit, "\(shown(path)) holds more than \(limit) entries")
            }
            var status = stat()
            let code = (name + [0]).withUnsafeBytes { raw in
                fstatat(dirfd(stream), raw.baseAddress!.assumingMemoryBound(to: CChar.self), &status, AT_SYMLINK_NOFOLLOW)
            }
            // Gone since readdir: not listed.
            guard code == 0 else { continue }
            entries.append(FileEntry(status, name: Array(name.prefix(FileTransferLimits.maxNameBytes))))
        }
        return entries.sorted { $0.name.lexicographicallyPrecedes($1.name) }
    }

    /// What `path` itself is (a symbolic link at its end is followed only within the root).
    public func describe(_ path: RemotePath) throws(FileSystemError) -> FileEntry {
        let descriptor = try open(path, flags: zrc_o_path)
        defer { _ = Glibc.close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw FileSystemError.errno(Glibc.errno, "stat", shown(path)) }
        let name = path.name.map { Array($0.text.utf8) } ?? Array((shownPath.split(separator: "/").last.map(String.init) ?? "/").utf8)
        return FileEntry(status, name: Array(name.prefix(FileTransferLimits.maxNameBytes)))
    }
}

extension FileEntry {
    init(_ status: stat, name: [UInt8]) {
        let kind: Kind =
            switch status.st_mode & S_IFMT {
            case S_IFREG: .file
            case S_IFDIR: .directory
            case S_IFLNK: .symbolicLink
            default: .other
            }
        self.init(name: name.isEmpty ? Array("?".utf8) : name, kind: kind, size: UInt64(max(0, status.st_size)),
                  mode: UInt16(status.st_mode & 0o7777), modifiedMicros: FileTimes.micros(status.st_mtim))
    }
}

/// File times as the protocol carries them: µs since 1970 UTC.
enum FileTimes {
    static func micros(_ time: timespec) -> Int64 {
        Int64(time.tv_sec).multipliedReportingOverflow(by: 1_000_000).partialValue &+ Int64(time.tv_nsec / 1000)
    }

    static func timespec(micros: Int64) -> Glibc.timespec {
        var seconds = micros / 1_000_000
        var rest = micros % 1_000_000
        if rest < 0 {
            seconds -= 1
            rest += 1_000_000
        }
        return Glibc.timespec(tv_sec: Int(seconds), tv_nsec: Int(rest * 1000))
    }
}
