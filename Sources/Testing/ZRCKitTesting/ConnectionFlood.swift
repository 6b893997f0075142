import Foundation
import Synchronization
import ZRCProtocol
import ZRCTestSupport

/// An attacker that keeps many stalled connections open to a host, from its own loopback source
/// address (so per-source limits apply to it, not to the test's real controller on 127.0.0.1):
/// `idle` connections that send nothing, and `identified` ones that send a valid preamble and the
/// header of a handshake record, then stall. Whenever the host closes one, it opens another.
/// Runs on a thread of its own (blocking sockets must not sit on Swift's cooperative pool), is
/// bounded in time and in connections, and stops itself.
public final class ConnectionFlood: Sendable {
    public struct Counts: Sendable {
        public var opened = 0
        public var closedByHost = 0
        public var peakOpen = 0

        public init() {}
    }

    private let state = Mutex<(stop: Bool, counts: Counts, finished: Bool)>((false, Counts(), false))
    /// Each change of the counts, and the end: what `waitUntil` and `stop` look again at.
    private let changes = ChangeSignal()
    private let port: UInt16
    private let source: String
    private let idle: Int
    private let identified: Int
    private let duration: Duration
    private let maxConnections: Int

    /// `maxConnections` bounds the connections opened in all (the host closes stalled ones, and
    /// each is replaced).
    public init(port: UInt16, source: String = "127.0.0.2", idle: Int = 100, identified: Int = 20, duration: Duration = .seconds(30),
                maxConnections: Int = 50_000) {
        self.maxConnections = maxConnections
        self.port = port
        self.source = source
        self.idle = idle
        self.identified = identified
        self.duration = duration
    }

    public func start() {
        let thread = Thread { [self] in
            run()
            state.withLock { $0.finished = true }
            changes.notify()
        }
        thread.start()
    }

    public var counts: Counts { state.withLock { $0.counts } }

    /// Whether `condition` held of the counts within `timeout`, looked at again at each change.
    public func waitUntil(within timeout: Duration, _ condition: (Counts) -> Bool) async -> Bool {
        await changes.wait(within: timeout) { condition(counts) }
    }

    /// Asks the flood to stop and waits (10 s at most) until its sockets are closed.
    public func stop() async {
        state.withLock { $0.stop = true }
        _ = await changes.wait(within: .seconds(10)) { state.withLock { $0.finished } }
    }

    private func run() {
        let deadline = ContinuousClock.now + duration
        var open: [(fd: Int32, identified: Bool)] = []
        defer { for connection in open { close(connection.fd) } }
        // The header of a 100-byte handshake record whose body never comes.
        let stalledHandshake = Preamble.encode() + [0x01, 0, 0, 0, 100]
        while !state.withLock({ $0.stop }), ContinuousClock.now < deadline, state.withLock({ $0.counts.opened }) < maxConnections {
            while open.count < idle + identified {
                let wantsIdentified = open.count(where: { $0.identified }) < identified
                guard let fd = connect() else { break }
                if wantsIdentified { _ = stalledHandshake.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
                open.append((fd, wantsIdentified))
                state.withLock {
                    $0.counts.opened += 1
                    $0.counts.peakOpen = max($0.counts.peakOpen, open.count)
                }
                changes.notify()
            }
            var polls = open.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            guard poll(&polls, nfds_t(polls.count), 100) >= 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 256)
            var closed: Set<Int32> = []
            for entry in polls where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count <= 0 {
                    close(entry.fd)
                    closed.insert(entry.fd)
                }
            }
            if !closed.isEmpty {
                open.removeAll { closed.contains($0.fd) }
                state.withLock { $0.counts.closedByHost += closed.count }
                changes.notify()
            }
        }
    }

    /// A blocking TCP connect from `source` to 127.0.0.1:`port`; nil if the kernel refuses.
    private func connect() -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let ok = withUnsafePointer(to: &local) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        } && withUnsafePointer(to: &remote) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard ok else {
            close(fd)
            return nil
        }
        return fd
    }
}
