import Testing
@testable import ZRCProtocol
import ZRCSodium

/// The LAN meeting point's stream: Noise NN, then sealed meeting point messages in u16 frames,
/// fed byte by byte as well as whole.
@Suite struct CodePairingLinkTests {
    /// Runs the handshake between two new links, `chunk` bytes at a time.
    static func connect(_ controller: inout CodePairingLink, _ host: inout CodePairingLink, chunk: Int) throws {
        var hostEvents: [CodePairingLink.Event] = []
        let opening = try controller.opening()
        for start in stride(from: 0, to: opening.count, by: chunk) {
            hostEvents += try host.receive(opening[start..<min(start + chunk, opening.count)])
        }
        guard case .send(let reply) = hostEvents.first, hostEvents.count == 2, hostEvents[1] == .ready else {
            Issue.record("the host did not answer the handshake: \(hostEvents)")
            throw CancellationError()
        }
        var controllerEvents: [CodePairingLink.Event] = []
        for start in stride(from: 0, to: reply.count, by: chunk) {
            controllerEvents += try controller.receive(reply[start..<min(start + chunk, reply.count)])
        }
        #expect(controllerEvents == [.ready])
    }

    @Test(arguments: [1, 7, 4096])
    func messagesCrossSealedInEitherDirection(chunk: Int) throws {
        let crypto = try SodiumCrypto()
        var controller = try CodePairingLink.controller(crypto: crypto)
        var host = try CodePairingLink.host(crypto: crypto)
        try Self.connect(&controller, &host, chunk: chunk)
        let announcement = PairingMeetingMessage.announcement(sid: [UInt8](repeating: 7, count: 16), expiresAt: 1_800_000_000)
        let sealed = try host.seal(announcement)
        // Sealed: the sid does not appear in clear.
        #expect(!sealed.windowsContain([UInt8](repeating: 7, count: 16)))
        var received: [CodePairingLink.Event] = []
        for start in stride(from: 0, to: sealed.count, by: chunk) {
            received += try controller.receive(sealed[start..<min(start + chunk, sealed.count)])
        }
        #expect(received == [.message(announcement)])
        let start = PairingMeetingMessage.start([UInt8](repeating: 1, count: 40))
        #expect(try host.receive(try controller.seal(start)) == [.message(start)])
    }

    @Test func aTamperedFrameAndAnOversizedOneAreRefused() throws {
        let crypto = try SodiumCrypto()
        var controller = try CodePairingLink.controller(crypto: crypto)
        var host = try CodePairingLink.host(crypto: crypto)
        try Self.connect(&controller, &host, chunk: 4096)
        var sealed = try controller.seal(.confirm([UInt8](repeating: 3, count: 32)))
        sealed[sealed.count - 1] ^= 1
        #expect(throws: SessionError.self) { _ = try host.receive(sealed) }
        var fresh = try CodePairingLink.host(crypto: crypto)
        let length = CodePairingLink.maximumFrameBody + 1
        #expect(throws: SessionError.self) { _ = try fresh.receive([UInt8(length >> 8), UInt8(length & 0xFF)]) }
        // Nothing is sealed before the handshake.
        #expect(throws: SessionError.self) { _ = try fresh.seal(.confirm([UInt8](repeating: 3, count: 32))) }
    }
}

extension Array where Element == UInt8 {
    func windowsContain(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<($0 + needle.count)]) == needle }
    }
}
