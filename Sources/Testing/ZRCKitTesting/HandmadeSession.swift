public import NIOCore
public import ZRCProtocol
import ZRCNetworking

/// A session opened by hand, as a hostile or unusual controller opens one: the handshake over a
/// fresh connection, then a `hello`, then whatever the caller sends or leaves unsent.
public enum HandmadeSession {
    /// Completes the handshake (this controller's preamble and message 1 first, then the host's
    /// answer read from `inbound`), sends `hello` with `capabilities`, and returns the channel.
    public static func open(
        requested: SessionFlags, identity: NoiseKeyPair, hostKey: NoisePublicKey, crypto: any NoiseCrypto, agent: String,
        capabilities: Capabilities, inbound: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) async throws -> SecureChannel {
        var handshake = try ControllerHandshake(
            purpose: .session(requested: requested), localStatic: identity, hostKey: hostKey,
            timestampMicros: WireClock.unixMicros(), agent: agent, crypto: crypto)
        try await outbound.write(ByteBuffer(bytes: handshake.firstFlight))
        while let buffer = try await inbound.next() {
            if try handshake.receive(buffer.readableBytesView) != nil { break }
        }
        var secure = try handshake.establish()
        try await outbound.write(ByteBuffer(bytes: try secure.seal(.hello(protocolVersion: 1, capabilities: capabilities, agent: agent))))
        return secure
    }
}
