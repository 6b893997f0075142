import Foundation
import Testing
import ZRCHostKit
import ZRCNetworking
import ZRCProtocol
import ZRCTestSupport
import ZRCKitTesting

/// Every accepted connection's end is accounted for: a flood of connections that the peer resets
/// or closes before the host handles them is visible in the log (a first line per reason, then
/// counts), never silent; a peer that sends part of a preamble and closes its side still gets
/// the host's preamble.
@Suite struct ConnectionAccountingTests {
    /// Connections the refusal log accounts for (a first line counts one, a summary its number).
    /// From any source: a connection reset before the host asked has no peer address to name
    /// ("an unknown address").
    static func accounted(in lines: [String]) -> Int {
        lines.reduce(0) { total, line in
            if line.contains("(connection from ") { return total + 1 }
            if let match = line.firstMatch(of: /— (\d+) more connections? from .+ in the last/) { return total + (Int(match.1) ?? 0) }
            return total
        }
    }

    /// Runs `body` on a thread of its own (blocking sockets stay off Swift's cooperative pool).
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in Thread { continuation.resume(returning: body()) }.start() }
    }

    static func connect(to port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let ok = withUnsafePointer(to: &remote) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard ok else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Waits (bounded, generously) until the host has seen every connection end.
    static func waitForEnds(_ harness: HostHarness, count: Int) async -> (accepted: Int, ended: Int) {
        var totals = await harness.server.connectionTotals()
        _ = await pollUntil("the host to see \(count) connections end", within: .seconds(120)) {
            totals = await harness.server.connectionTotals()
            return totals.ended >= count && totals.ended >= totals.accepted
        }
        return totals
    }

    @Test func aThousandResetsAreAllCountedInTheLog() async throws {
        let harness = try HostHarness()
        let address = try await harness.start()
        let port = address.port
        let made = await Self.offPool {
            var made = 0
            for _ in 0..<1000 {
                guard let fd = Self.connect(to: port) else { continue }
                // SO_LINGER 0: close sends a reset, at once, before the host has done anything.
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                close(fd)
                made += 1
            }
            return made
        }
        #expect(made == 1000)
        let totals = await Self.waitForEnds(harness, count: made)
        #expect(totals.accepted == made && totals.ended == made, "accepted \(totals.accepted), ended \(totals.ended) of \(made)")
        await harness.stop()  // writes the summaries still counting
        let accounted = Self.accounted(in: harness.log.all)
        #expect(accounted == made, "\(accounted) of \(made) resets in the log (\(harness.log.all.count) lines): \(harness.log.all.suffix(4))")
    }

    @Test func aTruncatedPreambleThenFINGetsThePreambleAndALogLine() async throws {
        let harness = try HostHarness()
        let address = try await harness.start()
        let port = address.port
        let preambleLength = Preamble.length
        let answers = await Self.offPool {
            (0..<50).map { _ -> Int in
                guard let fd = Self.connect(to: port) else { return -1 }
                defer { close(fd) }
                let part = Array(Preamble.encode().prefix(3))
                _ = part.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                shutdown(fd, Int32(SHUT_WR))
                var received = 0
                var buffer = [UInt8](repeating: 0, count: 256)
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                // Until the host closes (it does when it sees the end of our side).
                while poll(&poller, 1, 60_000) > 0 {
                    let count = recv(fd, &buffer, buffer.count, 0)
                    guard count > 0 else { break }
                    received += count
                }
                return received
            }
        }
        #expect(answers.allSatisfy { $0 == preambleLength }, "the host's preamble, whole, every time: \(answers)")
        _ = await Self.waitForEnds(harness, count: 50)
        await harness.stop()
        #expect(Self.accounted(in: harness.log.all) == 50, "\(harness.log.all.suffix(4))")
    }
}
