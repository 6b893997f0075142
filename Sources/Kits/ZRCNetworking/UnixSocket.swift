import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ZRCSystem

/// The few POSIX calls the local control socket needs, with errors that name the call: a Unix
/// stream socket to one path, the peer's user ID (SO_PEERCRED), and line I/O under a deadline.
/// Blocking: callers run it on threads of their own, never on Swift's cooperative pool.
struct UnixSocket: ~Copyable {
    // Noncopyable: exactly one owner closes the descriptor, when it goes.
    let fd: Int32

    init(adopting fd: Int32) {
        self.fd = fd
    }

    deinit { close(fd) }

    /// A failed call on the socket, named (ZRCSystem's error, which retries EINTR for us).
    typealias Failure = SystemCallError

    static func make() throws(Failure) -> UnixSocket {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket", errno: errno) }
        return UnixSocket(adopting: fd)
    }

    private static func address(_ path: String) throws(Failure) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Failure("socket path", errno: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: bytes) }
        return address
    }

    static func connect(to path: String) throws(Failure) -> UnixSocket {
        let socket = try make()
        var address = try address(path)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket.fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { throw Failure("connect", errno: errno) }
        return socket
    }

    static func listen(at path: String) throws(Failure) -> UnixSocket {
        let socket = try make()
        var address = try address(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket.fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw Failure("bind", errno: errno) }
        guard Glibc.listen(socket.fd, 16) == 0 else { throw Failure("listen", errno: errno) }
        return socket
    }

    /// The user ID of the process at the other end, from the kernel (not from anything it sent).
    func peerUserID() throws(Failure) -> uid_t {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; } — Glibc hides the type behind
        // _GNU_SOURCE, so it is read as its three 32-bit fields.
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0, length == 12 else {
            throw Failure("getsockopt(SO_PEERCRED)", errno: errno)
        }
        return credentials.uid
    }

    /// Waits until the socket is readable (or `deadline` passes: false).
    func waitReadable(until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 1000))
            let ready = poll(&poller, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return false }
        }
    }

    /// Accepts one connection, waiting at most until `deadline`; nil when none came.
    func accept(until deadline: ContinuousClock.Instant) throws(Failure) -> UnixSocket? {
        guard waitReadable(until: deadline) else { return nil }
        let client = Glibc.accept(fd, nil, nil)
        guard client >= 0 else {
            if errno == EINTR || errno == EAGAIN || errno == ECONNABORTED { return nil }
            throw Failure("accept", errno: errno)
        }
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        return UnixSocket(adopting: client)
    }

    /// Reads one newline-terminated line of at most `limit` bytes before `deadline`.
    func readLine(limit: Int, until deadline: ContinuousClock.Instant) throws(Failure) -> [UInt8] {
        var line: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            guard waitReadable(until: deadline) else { throw Failure("read (no answer in time)", errno: ETIMEDOUT) }
            let count = try SystemCall.retrying("read") { read(fd, &buffer, buffer.count) }
            guard count > 0 else { throw Failure("read (closed before a whole line)", errno: ECONNRESET) }
            if let newline = buffer[..<count].firstIndex(of: 0x0A) {
                line += buffer[..<newline]
                guard line.count <= limit else { throw Failure("read (line too long)", errno: EMSGSIZE) }
                return line
            }
            line += buffer[..<count]
            guard line.count <= limit else { throw Failure("read (line too long)", errno: EMSGSIZE) }
        }
    }

    func writeAll(_ bytes: [UInt8]) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let written = try SystemCall.retrying("write") { bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
            offset += written
        }
    }
}
