import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket listening on 127.0.0.1 (port chosen by the kernel), as plain POSIX: for peers the
/// tests and benchmarks play by hand.
public enum LoopbackSocket {
    /// The listening descriptor and its port.
    public static func listen(backlog: Int32) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("cannot make a socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && Glibc.listen(fd, backlog) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw HarnessError("cannot listen on loopback: \(reason)")
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }
}

/// A host that never answers: it listens and never accepts, so the kernel completes connections
/// and nothing is ever said on them.
public struct SilentListener: Sendable {
    public let fd: Int32
    public let port: UInt16

    public init() throws {
        (fd, port) = try LoopbackSocket.listen(backlog: 64)
    }

    public func close() { _ = Glibc.close(fd) }
}
