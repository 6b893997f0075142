import NIOCore
import ZRCNetworking
import ZRCProtocol

/// A client that sends arbitrary bytes, for hostile-peer tests.
enum RawClient {
    /// Sends `bytes`, optionally half-closes, and returns everything received until the host closes
    /// the connection or `timeout` passes.
    static func exchange(_ bytes: [UInt8], with address: HostPort, timeout: Duration = .seconds(5)) async throws -> [UInt8] {
        let channel = try await TCPEndpoint.connect(host: address.host, port: Int(address.port), timeout: .seconds(2))
        let timer = TCPEndpoint.closeAfter(timeout, channel: channel.channel)
        defer { timer.cancel() }
        return try await channel.executeThenClose { inbound, outbound in
            if !bytes.isEmpty { try await outbound.write(ByteBuffer(bytes: bytes)) }
            var received: [UInt8] = []
            do {
                for try await buffer in inbound { received += buffer.readableBytesView }
            } catch {
                // A reset counts as closed.
            }
            return received
        }
    }

    /// Whether the host closed the connection (rather than our timer).
    static func hostCloses(after bytes: [UInt8], at address: HostPort, within timeout: Duration) async throws -> Bool {
        let clock = ContinuousClock()
        let start = clock.now
        // The client's own patience is far longer than the host's, so a close within it is the
        // host's doing, however loaded the machine is.
        _ = try await exchange(bytes, with: address, timeout: timeout + .seconds(20))
        return clock.now - start < timeout + .seconds(19)
    }
}
