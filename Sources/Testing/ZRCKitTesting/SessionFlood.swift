import Foundation
import NIOCore
import ZRCNetworking
public import ZRCProtocol

/// A paired controller turned hostile: it opens a view-only session by hand, says hello, then
/// writes pings and key events as fast as the socket takes them (in bounded batches) and never
/// reads again. Used by the hostile-peer tests and by `zrc-bench flood`.
public enum SessionFlood {
    /// Floods for `duration` (or until the host closes the connection, or the task is cancelled);
    /// returns the number of messages written.
    public static func run(host: HostPort, identity: NoiseKeyPair, hostKey: NoisePublicKey, crypto: any NoiseCrypto,
                           duration: Duration) async throws -> Int {
        let channel = try await TCPEndpoint.connect(host: host.host, port: Int(host.port), timeout: .seconds(5))
        return try await channel.executeThenClose { inbound, outbound in
            var iterator = inbound.makeAsyncIterator()
            var secure = try await HandmadeSession.open(requested: .viewOnly, identity: identity, hostKey: hostKey, crypto: crypto,
                                                        agent: "flooder", capabilities: [], inbound: &iterator, outbound: outbound)
            var sent = 0
            let end = ContinuousClock.now + duration
            while ContinuousClock.now < end, !Task.isCancelled {
                var batch: [UInt8] = []
                for index in 0..<64 {
                    let message: ZRCMessage = index % 2 == 0
                        ? .ping(id: UInt64(sent + index), sentAtMicros: 0)
                        : .input(.key(keysym: 0x61, pressed: true, modifiers: []))
                    batch += try secure.seal(message)
                }
                // Blocks once the host stops reading from us (as it should when it has had enough).
                do {
                    try await outbound.write(ByteBuffer(bytes: batch))
                } catch {
                    break  // the host closed the connection
                }
                sent += 64
                try? await Task.sleep(for: .milliseconds(1))
            }
            return sent
        }
    }
}
