import Foundation
import Testing
import ZRCControllerKit
import ZRCHostKit
import ZRCProtocol
import ZRCTestSupport
import ZRCKitTesting

/// Garbage, truncated, oversized and stalled connections are each closed with a logged reason,
/// while a paired controller's session carries on undisturbed.
@Suite struct HostileClientTests {
    /// Short, so a stalled handshake is closed soon, yet long enough for the paired controller's
    /// own pairing (which it also bounds) on a loaded machine. A handshake that stalls after its
    /// record header goes at the 1 s message-1 deadline anyway.
    static let handshakeTimeout: Duration = .seconds(10)

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let logged: String
        var testDescription: String { name }
    }

    static let cases: [Case] = {
        var random = SystemRandomNumberGenerator()
        let garbage = (0..<512).map { _ in UInt8.random(in: 0...255, using: &random) }
        let preamble = Preamble.encode()
        return [
            Case(name: "random bytes", bytes: [0x47, 0x45, 0x54] + garbage, logged: "not a ZRC controller"),
            Case(name: "an HTTP request", bytes: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8), logged: "not a ZRC controller"),
            Case(name: "a truncated handshake", bytes: preamble + [0x01, 0x00, 0x00, 0x00, 0x60] + Array(repeating: 7, count: 20),
                 logged: "message 1 not completed within"),
            Case(name: "an oversized length", bytes: preamble + [0x01, 0xFF, 0xFF, 0xFF, 0xFF], logged: "closed connection"),
            Case(name: "a maximum+1 length", bytes: preamble + [0x01, 0x00, 0x01, 0x00, 0x00], logged: "closed connection"),
            Case(name: "a stalled handshake", bytes: [], logged: "handshake not completed within"),
            Case(name: "a transport record first", bytes: preamble + [0x02, 0x00, 0x00, 0x00, 0x01, 0x00],
                 logged: "not a handshake record"),
            Case(name: "a garbage handshake message", bytes: preamble + [0x01, 0x00, 0x00, 0x00, 0x61, 0x02] + Array(repeating: 9, count: 96),
                 logged: "did not decrypt"),
        ]
    }()

    @Test(arguments: cases)
    func hostileConnectionIsClosedWithAReasonWhileAPairedSessionKeepsWorking(_ hostile: Case) async throws {
        let harness = try HostHarness(handshakeTimeout: Self.handshakeTimeout)
        let address = try await harness.start()
        try await harness.stoppingAfter {
            let (controller, _) = harness.controller()
            _ = try await harness.pair(controller, name: "desk")
            let session = try await controller.connect(to: "desk")

            let closedByHost = try await RawClient.hostCloses(after: hostile.bytes, at: address, within: Self.handshakeTimeout)
            #expect(closedByHost, "the host must close the connection itself")
            #expect(await harness.log.waitFor(hostile.logged), "log: \(harness.log.all.joined(separator: "\n"))")

            _ = try await session.ping(timeout: .seconds(60))
            #expect(await session.end == nil)
            await session.close()
        }
    }
}
