import Glibc
import Synchronization
public import ZRCViewer

/// Hands pixels to a kitty-protocol terminal on this machine through POSIX shared memory: each
/// image is a new object, mode 0600 (only this user, whom the terminal runs as, can read it), which
/// the terminal unlinks once it has read it. Objects a terminal never read are unlinked by
/// `removeLeftovers()` when the viewer leaves.
public final class SharedMemoryImages: KittySharedMemoryWriter, Sendable {
    private let prefix: String
    private let state = Mutex<(next: UInt64, recent: [String])>((0, []))
    static let recentLimit = 64

    public init() {
        prefix = "/zrc-kitty-\(getpid())-"
    }

    public func write(_ bytes: [UInt8]) throws -> String {
        let name = state.withLock { state -> String in
            state.next += 1
            let name = prefix + String(state.next)
            state.recent.append(name)
            if state.recent.count > Self.recentLimit { state.recent.removeFirst() }
            return name
        }
        let fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw TerminalDevice.failure("shm_open(\(name))") }
        defer { close(fd) }
        guard ftruncate(fd, off_t(bytes.count)) == 0 else {
            shm_unlink(name)
            throw TerminalDevice.failure("ftruncate")
        }
        let written = bytes.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = pwrite(fd, buffer.baseAddress! + offset, buffer.count - offset, off_t(offset))
                if count > 0 { offset += count } else if count < 0, errno == EINTR { continue } else { return false }
            }
            return true
        }
        guard written else {
            shm_unlink(name)
            throw TerminalDevice.failure("write to shared memory")
        }
        return name
    }

    /// Unlinks the objects this process created that still exist.
    public func removeLeftovers() {
        let names = state.withLock { state in
            defer { state.recent = [] }
            return state.recent
        }
        for name in names { shm_unlink(name) }
    }
}
