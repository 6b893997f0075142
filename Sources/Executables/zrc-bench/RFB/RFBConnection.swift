import Foundation
import Synchronization
import ZRCSystem

/// The benchmark's RFB (VNC) client's TCP connection: connected once, then read by one thread
/// (`RFBReader`) and written by any (`RFBWriter`, whole messages under a lock).
enum RFBConnection {
    /// Connects to an IPv4 `address` and `port`; the socket's descriptor, with Nagle off (VNC
    /// clients send small input messages that must not wait).
    static func connect(address: String, port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw BenchError("RFB: socket() failed: \(SystemCall.describe(errno))") }
        var peer = sockaddr_in()
        peer.sin_family = sa_family_t(AF_INET)
        peer.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, address, &peer.sin_addr) == 1 else {
            close(descriptor)
            throw BenchError("RFB: \(address) is not an IPv4 address")
        }
        let connected = withUnsafePointer(to: &peer) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = SystemCall.describe(errno)
            close(descriptor)
            throw BenchError("RFB: cannot connect to \(address):\(port): \(reason)")
        }
        var on: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return descriptor
    }
}

/// Buffered, counting reads of a blocking socket; used by the client's one reader thread.
final class RFBReader {
    private let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 256 * 1024)
    private var start = 0
    private var end = 0
    /// Every byte received so far (the figures' "bytes"), readable from any thread as it grows,
    /// so a large update still arriving counts in the interval it arrives in.
    let total: RFBByteCounter

    init(descriptor: Int32, total: RFBByteCounter) {
        self.descriptor = descriptor
        self.total = total
    }

    /// Exactly `count` bytes; throws when the server closes the connection first.
    func bytes(_ count: Int) throws -> [UInt8] {
        var result = [UInt8]()
        result.reserveCapacity(count)
        while result.count < count {
            if start == end { try fill() }
            let take = min(count - result.count, end - start)
            result.append(contentsOf: buffer[start..<(start + take)])
            start += take
        }
        return result
    }

    func skip(_ count: Int) throws {
        var left = count
        while left > 0 {
            if start == end { try fill() }
            let take = min(left, end - start)
            start += take
            left -= take
        }
    }

    func u8() throws -> UInt8 {
        if start == end { try fill() }
        defer { start += 1 }
        return buffer[start]
    }

    func u16() throws -> Int { Int(try u8()) << 8 | Int(try u8()) }

    func u32() throws -> UInt32 {
        let bytes = try bytes(4)
        return UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
    }

    func s32() throws -> Int32 { Int32(bitPattern: try u32()) }

    private func fill() throws {
        start = 0
        end = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                end = count
                total.add(count)
                return
            }
            if count < 0 && errno == EINTR { continue }
            throw BenchError(count == 0 ? "RFB: the server closed the connection" : "RFB: read failed: \(SystemCall.describe(errno))")
        }
    }
}

/// Bytes received, counted by the reader thread and read by the measuring side.
final class RFBByteCounter: Sendable {
    private let count = Atomic<Int>(0)
    func add(_ bytes: Int) { count.add(bytes, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// Whole client messages onto the socket, from any thread.
final class RFBWriter: Sendable {
    private let descriptor: Int32
    private let lock = Mutex(())

    init(descriptor: Int32) { self.descriptor = descriptor }

    func send(_ message: [UInt8]) throws {
        try lock.withLock { _ in
            var sent = 0
            while sent < message.count {
                let count = message.withUnsafeBytes { write(descriptor, $0.baseAddress! + sent, $0.count - sent) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { throw BenchError("RFB: write failed: \(SystemCall.describe(errno))") }
                sent += count
            }
        }
    }

    /// FramebufferUpdateRequest for the whole screen.
    func requestUpdate(incremental: Bool, width: Int, height: Int) throws {
        try send([3, incremental ? 1 : 0, 0, 0, 0, 0] + Self.u16(width) + Self.u16(height))
    }

    /// PointerEvent: the button mask (bit 0 = left) at (x, y).
    func pointer(buttons: UInt8, x: Int, y: Int) throws {
        try send([5, buttons] + Self.u16(x) + Self.u16(y))
    }

    static func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    static func s32(_ value: Int32) -> [UInt8] {
        let bits = UInt32(bitPattern: value)
        return [UInt8(bits >> 24), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits & 0xFF)]
    }

    func close() { shutdown(descriptor, Int32(SHUT_RDWR)) }
}
