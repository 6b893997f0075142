import Foundation
import Synchronization
import ZRCSodium
public import ZRCProtocol
import ZRCTestSupport

/// A malicious host: completes the session handshake with any controller (it checks no
/// authorization), then sends a scripted list of application messages — encoded by hand, so they
/// may break every rule — then, if given, trickles raw transport fragments one at a time, and keeps
/// the connection open until the controller goes (20 s at most, 90 s while trickling).
///
/// Plain blocking sockets on a thread of its own: the rest of the suite may keep Swift's few
/// cooperative threads busy, and a host that waits for them misses the controller's handshake
/// deadline (that made this test flaky under load).
public final class HostileHost: Sendable {
    public let identity: NoiseKeyPair
    public let port: UInt16
    private let listener: Int32
    private let stopped = Mutex(false)
    private let finished = Mutex(false)
    private let finishing = ChangeSignal()

    /// `trickle`: transport plaintexts (fragment flags included) sent one per `trickleInterval`
    /// after the script, over and over, until the controller goes.
    public init(hostName: String, script: [[UInt8]], trickle: [[UInt8]] = [], trickleInterval: Duration = .milliseconds(200)) async throws {
        let crypto = try SodiumCrypto()
        let identity = crypto.generateKeyPair()
        self.identity = identity
        let (fd, port) = try LoopbackSocket.listen(backlog: 8)
        listener = fd
        self.port = port
        let listener = fd
        Thread { [self] in
            defer {
                finished.withLock { $0 = true }
                finishing.notify()
            }
            while !stopped.withLock({ $0 }) {
                var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) > 0 else { continue }
                let client = accept(listener, nil, nil)
                guard client >= 0 else { continue }
                Self.serve(client, identity: identity, crypto: crypto, hostName: hostName, script: script,
                           trickle: trickle, trickleInterval: trickleInterval)
                close(client)
            }
        }.start()
    }

    /// Stops accepting and waits (30 s at most) until the controller being served has gone.
    public func stop() async {
        stopped.withLock { $0 = true }
        _ = await finishing.wait(within: .seconds(30)) { finished.withLock { $0 } }
        close(listener)
    }

    /// One controller: the handshake, the script, then reading until it goes (20 s at most).
    private static func serve(_ fd: Int32, identity: NoiseKeyPair, crypto: SodiumCrypto, hostName: String, script: [[UInt8]],
                              trickle: [[UInt8]], trickleInterval: Duration) {
        let deadline = ContinuousClock.now + .seconds(trickle.isEmpty ? 20 : 90)
        func write(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
        func read() -> [UInt8]? {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            while poll(&poller, 1, 100) == 0 { if ContinuousClock.now >= deadline { return nil } }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = recv(fd, &buffer, buffer.count, 0)
            return count > 0 ? Array(buffer[..<count]) : nil
        }
        guard write(HostHandshake.preamble) else { return }
        var handshake = HostHandshake()
        var initiation: HandshakeInitiation?
        while initiation == nil {
            guard let bytes = read(), let received = try? handshake.receive(bytes) else {
                if initiation == nil, ContinuousClock.now >= deadline { return }
                continue
            }
            initiation = received
        }
        guard var responder = try? handshake.respond(localStatic: identity, psk: nil, crypto: crypto),
              let response = try? responder.accept(HandshakeResponsePayload(sessionID: 1, granted: [], hostName: hostName)),
              write(response), var channel = try? responder.establish()
        else { return }
        for message in script {
            guard let sealed = try? channel.seal(encoded: message), write(sealed) else { return }
        }
        var next = 0
        while !trickle.isEmpty, ContinuousClock.now < deadline {
            guard let sealed = try? channel.seal(fragment: trickle[next % trickle.count]), write(sealed) else { return }
            next += 1
            // Waiting for input doubles as the pause (the whole interval, whatever the controller
            // sends meanwhile, which is dropped).
            let pauseEnd = ContinuousClock.now + trickleInterval
            while ContinuousClock.now < pauseEnd {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let left = pauseEnd - ContinuousClock.now
                let milliseconds = Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
                if poll(&poller, 1, milliseconds) > 0 {
                    var buffer = [UInt8](repeating: 0, count: 65536)
                    guard recv(fd, &buffer, buffer.count, 0) > 0 else { return }
                }
            }
        }
        while read() != nil {}
    }
}

/// Hand-encoded hostile messages.
public enum HostileMessages {
    /// Text that would retitle the window and clear the screen if it reached a terminal as is.
    public static let escapes = "\u{1B}]0;PWNED\u{07}\u{1B}[2J\u{202E}evil\u{200B}"

    public static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    public static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> (24 - 8 * $0) & 0xFF) } }
    public static func string(_ text: String) -> [UInt8] { be16(UInt16(text.utf8.count)) + Array(text.utf8) }

    public static var hello: [UInt8] { [0x01] + be16(1) + be32(0x1F) + string("agent " + escapes) }
    /// A hello that announces a shared clipboard (capability bit 10).
    public static var helloSharingClipboard: [UInt8] { [0x01] + be16(1) + be32(0x41F) + string("agent") }

    /// A `clipboard` message (0x40) for CLIPBOARD, nobody having asked for it: a command that
    /// would run if it were pasted into a local shell.
    public static let pastejack = "echo pwned > /tmp/zrc-pastejack\nrm -rf ~/important\n"
    public static var unrequestedClipboard: [UInt8] {
        let mime = Array("text/plain;charset=utf-8".utf8)
        return [0x40, 0x00, UInt8(mime.count)] + mime + be32(UInt32(pastejack.utf8.count)) + Array(pastejack.utf8)
    }

    /// A whole message as one transport fragment (flags FIRST|LAST, u32 length), for `trickle`.
    public static func fragment(_ message: [UInt8]) -> [UInt8] { [0x03] + be32(UInt32(message.count)) + message }
    /// A ping (0x02), which a controller answers and otherwise ignores.
    public static var ping: [UInt8] { [0x02] + [UInt8](repeating: 0, count: 16) }
    public static var notice: [UInt8] { [0x05] + be16(2) + string("notice " + escapes) }
    public static var revokedClose: [UInt8] { [0x04] + be16(4) + string("bye " + escapes) }

    /// A frame update header with no rects announcing a `width` × `height` screen.
    public static func emptyFrame(id: UInt64, width: UInt32, height: UInt32) -> [UInt8] {
        [0x11] + (0..<8).map { UInt8(id >> (56 - 8 * $0) & 0xFF) } + [UInt8](repeating: 0, count: 24)
            + be32(width) + be32(height) + [0] + be16(0)
    }

    /// The FIRST fragment of a message announcing the largest length a controller takes (32 MiB),
    /// then one-byte continuations that never reach it: a message that never ends.
    public static var neverEndingMessage: (first: [UInt8], continuation: [UInt8]) {
        ([0x01] + be32(UInt32(WireLimits.defaultMaxMessageLength)) + [0x11], [0x00, 0x00])
    }

    /// 65535 solid 1×1 rects on a 1920×1080 screen (valid, but a flood).
    public static func rectFlood(id: UInt64) -> [UInt8] {
        var bytes = [0x11] + (0..<8).map { UInt8(id >> (56 - 8 * $0) & 0xFF) } + [UInt8](repeating: 0, count: 24)
            + be32(1920) + be32(1080) + [0] + be16(65535)
        bytes.reserveCapacity(bytes.count + 65535 * 13)
        for index in 0..<65535 {
            bytes += be16(UInt16(index % 1920)) + be16(UInt16(index / 1920)) + be16(1) + be16(1) + [2] + be32(0x00FF_00FF)
        }
        return bytes
    }
}
