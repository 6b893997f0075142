import Foundation
import NIOCore
import ZRCNetworking
import ZRCSodium
@testable import ZRCProtocol

/// A malicious host: completes the session handshake with any controller (it checks no
/// authorization), then sends a scripted list of application messages — encoded by hand, so they
/// may break every rule — and keeps the connection open until the controller goes (20 s at most).
final class HostileHost: Sendable {
    let identity: NoiseKeyPair
    let crypto: SodiumCrypto
    let hostName: String
    private let script: [[UInt8]]
    private let task: Task<Void, any Error>
    let port: UInt16

    init(hostName: String, script: [[UInt8]]) async throws {
        let crypto = try SodiumCrypto()
        let identity = crypto.generateKeyPair()
        let listener = try await TCPEndpoint.listen(host: "127.0.0.1", port: 0)
        port = UInt16(listener.channel.localAddress?.port ?? 0)
        self.crypto = crypto
        self.identity = identity
        self.hostName = hostName
        self.script = script
        task = Task {
            try await withThrowingDiscardingTaskGroup { group in
                try await listener.executeThenClose { connections in
                    for try await connection in connections {
                        group.addTask { await Self.serve(connection, identity: identity, crypto: crypto, hostName: hostName, script: script) }
                    }
                }
            }
        }
    }

    func stop() async {
        task.cancel()
        _ = await task.result
    }

    private static func serve(_ connection: TCPEndpoint.Connection, identity: NoiseKeyPair, crypto: SodiumCrypto, hostName: String,
                              script: [[UInt8]]) async {
        let timer = TCPEndpoint.closeAfter(.seconds(20), channel: connection.channel)
        defer { timer.cancel() }
        try? await connection.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(bytes: HostHandshake.preamble))
            var iterator = inbound.makeAsyncIterator()
            var handshake = HostHandshake()
            var initiation: HandshakeInitiation?
            while initiation == nil, let buffer = try await iterator.next() {
                initiation = try handshake.receive(buffer.readableBytesView)
            }
            guard initiation != nil else { return }
            var responder = try handshake.respond(localStatic: identity, psk: nil, crypto: crypto)
            let response = try responder.accept(HandshakeResponsePayload(sessionID: 1, granted: [], hostName: hostName))
            try await outbound.write(ByteBuffer(bytes: response))
            var channel = try responder.establish()
            for message in script {
                try await outbound.write(ByteBuffer(bytes: try channel.seal(encoded: message)))
            }
            // Keep the connection until the controller leaves (or the timer ends it).
            while (try? await iterator.next()) != nil {}
        }
    }
}

/// Hand-encoded hostile messages.
enum HostileMessages {
    /// Text that would retitle the window and clear the screen if it reached a terminal as is.
    static let escapes = "\u{1B}]0;PWNED\u{07}\u{1B}[2J\u{202E}evil\u{200B}"

    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> (24 - 8 * $0) & 0xFF) } }
    static func string(_ text: String) -> [UInt8] { be16(UInt16(text.utf8.count)) + Array(text.utf8) }

    static var hello: [UInt8] { [0x01] + be16(1) + be32(0x1F) + string("agent " + escapes) }
    static var notice: [UInt8] { [0x05] + be16(2) + string("notice " + escapes) }
    static var revokedClose: [UInt8] { [0x04] + be16(4) + string("bye " + escapes) }

    /// A frame update header with no rects announcing a `width` × `height` screen.
    static func emptyFrame(id: UInt64, width: UInt32, height: UInt32) -> [UInt8] {
        [0x11] + (0..<8).map { UInt8(id >> (56 - 8 * $0) & 0xFF) } + [UInt8](repeating: 0, count: 24)
            + be32(width) + be32(height) + [0] + be16(0)
    }

    /// 65535 solid 1×1 rects on a 1920×1080 screen (valid, but a flood).
    static func rectFlood(id: UInt64) -> [UInt8] {
        var bytes = [0x11] + (0..<8).map { UInt8(id >> (56 - 8 * $0) & 0xFF) } + [UInt8](repeating: 0, count: 24)
            + be32(1920) + be32(1080) + [0] + be16(65535)
        bytes.reserveCapacity(bytes.count + 65535 * 13)
        for index in 0..<65535 {
            bytes += be16(UInt16(index % 1920)) + be16(UInt16(index / 1920)) + be16(1) + be16(1) + [2] + be32(0x00FF_00FF)
        }
        return bytes
    }
}
