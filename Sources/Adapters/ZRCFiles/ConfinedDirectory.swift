internal import CFileSystem
import Glibc
public import ZRCProtocol
import ZRCSystem

/// A directory every path is resolved beneath, and never out of: `openat2` with RESOLVE_BENEATH
/// and RESOLVE_NO_MAGICLINKS (a `..`, an absolute symbolic link, or a relative one climbing out
/// fails with EXDEV), or on kernels without it a walk that opens every component with O_NOFOLLOW
/// (no symbolic link is followed at all). Everything after that is done on descriptors, so a
/// symbolic link swapped in while a transfer runs changes nothing it does.
///
/// Not `Sendable` in spirit but as a value it only holds a descriptor number: the owner (one actor)
/// closes it once with `close()`.
public struct ConfinedDirectory: Sendable {
    public let descriptor: Int32
    /// Where it is, for people (error texts, the page).
    public let shownPath: String

    /// Opens the directory at `path` (an absolute path the user or the host's settings chose).
    public static func open(_ path: String) throws(FileSystemError) -> ConfinedDirectory {
        do {
            let descriptor = try SystemCall.retrying("open") { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
            return ConfinedDirectory(descriptor: descriptor, shownPath: path)
        } catch {
            throw FileSystemError.from(error, path)
        }
    }

    init(descriptor: Int32, shownPath: String) {
        self.descriptor = descriptor
        self.shownPath = shownPath
    }

    public func close() { _ = Glibc.close(descriptor) }

    /// Opens `path` beneath this directory with `flags` (O_CLOEXEC added). The empty path is this
    /// directory itself.
    public func open(_ path: RemotePath, flags: Int32, mode: UInt32 = 0) throws(FileSystemError) -> Int32 {
        let text = path.components.isEmpty ? "." : path.text
        while true {
            let result = zrc_open_beneath(descriptor, text, UInt64(UInt32(bitPattern: flags | O_CLOEXEC)), UInt64(mode))
            if result >= 0 { return result }
            let code = Glibc.errno
            if code == EINTR || code == EAGAIN { continue }
            if code == ENOSYS { return try walk(path, flags: flags, mode: mode) }
            throw FileSystemError.errno(code, "open", shown(path))
        }
    }

    /// The fallback: every directory opened with O_NOFOLLOW | O_DIRECTORY, the last component with
    /// O_NOFOLLOW, so no symbolic link is followed (a stricter rule than openat2's).
    private func walk(_ path: RemotePath, flags: Int32, mode: UInt32) throws(FileSystemError) -> Int32 {
        var current = try duplicate()
        for (index, name) in path.components.enumerated() {
            let last = index == path.components.count - 1
            let stepFlags = last ? flags | O_NOFOLLOW | O_CLOEXEC : O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
            let next = Glibc.openat(current, name.text, stepFlags, mode)
            let code = Glibc.errno
            _ = Glibc.close(current)
            guard next >= 0 else { throw FileSystemError.errno(code, "open", shown(path)) }
            current = next
        }
        if path.components.isEmpty {
            _ = Glibc.close(current)
            return try openSelf(flags: flags)
        }
        return current
    }

    private func openSelf(flags: Int32) throws(FileSystemError) -> Int32 {
        let result = Glibc.openat(descriptor, ".", flags | O_CLOEXEC)
        guard result >= 0 else { throw FileSystemError.errno(Glibc.errno, "open", shownPath) }
        return result
    }

    private func duplicate() throws(FileSystemError) -> Int32 {
        let result = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard result >= 0 else { throw FileSystemError.errno(Glibc.errno, "dup", shownPath) }
        return result
    }

    /// The directory at `path`, itself confined the same way.
    public func directory(_ path: RemotePath) throws(FileSystemError) -> ConfinedDirectory {
        let descriptor = try open(path, flags: O_RDONLY | O_DIRECTORY)
        return ConfinedDirectory(descriptor: descriptor, shownPath: shown(path))
    }

    /// Creates the directory `name` here (mode 0700 until the copy sets its own; an existing
    /// directory is fine) and opens it.
    public func makeDirectory(_ name: FileName, mode: UInt32 = 0o700) throws(FileSystemError) -> ConfinedDirectory {
        if Glibc.mkdirat(descriptor, name.text, mode) != 0, Glibc.errno != EEXIST {
            throw FileSystemError.errno(Glibc.errno, "mkdir", shown(name))
        }
        return try directory(RemotePath(components: [name]))
    }

    /// Creates `path` and its missing parents beneath this directory, each step confined like
    /// `makeDirectory` (never through a symbolic link out of it).
    public func makeDirectories(_ path: RemotePath, mode: UInt32) throws(FileSystemError) {
        var current = self
        defer { if current.descriptor != descriptor { current.close() } }
        for name in path.components {
            let next = try current.makeDirectory(name, mode: mode)
            if current.descriptor != descriptor { current.close() }
            current = next
        }
    }

    /// `path` for people: beneath `shownPath`.
    public func shown(_ path: RemotePath) -> String {
        path.components.isEmpty ? shownPath : shownPath.hasSuffix("/") ? shownPath + path.text : shownPath + "/" + path.text
    }

    public func shown(_ name: FileName) -> String { shown(RemotePath(components: [name])) }
}
