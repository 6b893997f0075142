import Foundation
import NIOCore
import Testing
import ZRCControllerKit
import ZRCHostKit
import ZRCNetworking
import ZRCProtocol
import ZRCStorage
import ZRCTestSupport
import ZRCKitTesting

@Suite struct SessionTests {
    @Test func revokingEndsTheLiveSessionAndRefusesTheNextOne() async throws {
        let harness = try HostHarness()
        _ = try await harness.start()
        try await harness.stoppingAfter {
            let (controller, _) = harness.controller(name: "laptop")
            _ = try await harness.pair(controller, name: "desk")
            let session = try await controller.connect(to: "desk")
            _ = try await session.ping(timeout: .seconds(60))

            let response = try await harness.request(.revokeController(name: "laptop"))
            #expect(response == .revoked(name: "laptop", endedSessions: 1))
            let end = await session.waitUntilEnded()
            #expect(end == .remote(reason: .revoked, text: "this controller's access was revoked on the host"))

            let error = await #expect(throws: ControllerError.self) { try await controller.connect(to: "desk") }
            #expect(error?.kind == .rejected(.notAuthorized))
        }
    }

    /// A revocation made by editing the trust store (another process, not the control socket)
    /// ends the live session too; a controller still in the store keeps its own.
    @Test func removingAControllerFromTheStoreFileEndsItsLiveSessions() async throws {
        let harness = try HostHarness()
        _ = try await harness.start()
        try await harness.stoppingAfter {
            let (controller, _) = harness.controller(name: "laptop")
            _ = try await harness.pair(controller, name: "desk")
            let (other, _) = harness.controller(name: "tablet")
            _ = try await harness.pair(other, name: "desk")
            let session = try await controller.connect(to: "desk")
            let kept = try await other.connect(to: "desk")
            _ = try await session.ping(timeout: .seconds(60))

            // Another process edits the file: the server is not told.
            let editor = AuthorizedControllersStore(file: harness.server.controllers.file)
            _ = try await editor.revoke(name: "laptop")
            let end = await session.waitUntilEnded()
            #expect(end == .remote(reason: .revoked, text: "this controller's access was revoked on the host"))
            #expect(harness.log.contains("the trust store no longer holds laptop"))
            _ = try await kept.ping(timeout: .seconds(60))
            #expect(await kept.end == nil, "the other controller's session goes on")
            await kept.close()
        }
    }

    @Test func aHostWithANewKeyIsRefusedWithAnExplanation() async throws {
        let original = try HostHarness()
        _ = try await original.start()
        try await original.stoppingAfter {
            let (controller, identity) = original.controller()
            _ = try await controller.pair(inviteText: try await original.invite(), name: "desk")

            // Another machine (or a reinstall) answers at the pinned address with a different key, and
            // even knows this controller.
            let impostor = try HostHarness()
            let address = try await impostor.start()
            try await impostor.stoppingAfter {
                _ = try await impostor.server.controllers.authorize(name: "laptop", publicKey: identity.publicKey, at: Date())
                var pinned = try await controller.knownHosts.host(named: "desk")
                pinned.addresses = [address.description]
                try await controller.knownHosts.add(pinned)

                let error = await #expect(throws: ControllerError.self) { try await controller.connect(to: "desk") }
                #expect(error?.kind == .rejected(.hostKeyMismatch))
                #expect(error?.message.contains("zrc-ctl forget desk") == true)
                #expect(error?.message.contains("identity key") == true)
                #expect(await impostor.log.waitFor("did not decrypt with this host's key"))
            }
        }
    }

    @Test func aReplayedFirstMessageIsRefused() async throws {
        let harness = try HostHarness()
        let address = try await harness.start()
        try await harness.stoppingAfter {
            let (controller, identity) = harness.controller()
            _ = try await harness.pair(controller, name: "desk")

            let handshake = try ControllerHandshake(
                purpose: .session(requested: []), localStatic: identity, hostKey: harness.hostIdentity.publicKey,
                timestampMicros: WireClock.unixMicros(), agent: "replay-test", crypto: harness.crypto)
            let recorded = handshake.firstFlight
            let firstReply = try await RawClient.exchange(recorded, with: address)
            #expect(firstReply.count > Preamble.length && firstReply[Preamble.length] == 0x01,
                    "the genuine first message gets handshake message 2")
            let replayReply = try await RawClient.exchange(recorded, with: address)
            #expect(Array(replayReply.suffix(7)) == HostHandshake.rejection(.replayedHandshake))
            #expect(await harness.log.waitFor("was seen before or is too old"))
        }
    }

    @Test func anUnknownControllerIsRefused() async throws {
        let harness = try HostHarness()
        _ = try await harness.start()
        try await harness.stoppingAfter {
            let (paired, _) = harness.controller()
            let host = try await harness.pair(paired, name: "desk")
            let (stranger, _) = harness.controller(name: "stranger")
            try await stranger.knownHosts.add(host)
            let error = await #expect(throws: ControllerError.self) { try await stranger.connect(to: "desk") }
            #expect(error?.kind == .rejected(.notAuthorized))
        }
    }

    @Test func theHostNoticesADeadController() async throws {
        let harness = try HostHarness(deadPeerTimeout: .seconds(5))
        let address = try await harness.start()
        try await harness.stoppingAfter {
            let (_, identity) = harness.controller()
            // Authorized directly: a pairing connection is held to the same short timeout, which a
            // loaded machine can outlast.
            _ = try await harness.server.controllers.authorize(name: "laptop", publicKey: identity.publicKey, at: Date())
            // Complete a handshake by hand, then go silent: no keepalives, no reads.
            var handshake = try ControllerHandshake(
                purpose: .session(requested: []), localStatic: identity, hostKey: harness.hostIdentity.publicKey,
                timestampMicros: WireClock.unixMicros(), agent: "silent", crypto: harness.crypto)
            let channel = try await TCPEndpoint.connect(host: address.host, port: Int(address.port), timeout: .seconds(2))
            try await channel.executeThenClose { inbound, outbound in
                try await outbound.write(ByteBuffer(bytes: handshake.firstFlight))
                var iterator = inbound.makeAsyncIterator()
                while let buffer = try await iterator.next() {
                    if try handshake.receive(buffer.readableBytesView) != nil { break }
                }
                #expect(await harness.log.waitFor("session ended: the peer stopped answering", timeout: .seconds(25)))
            }
        }
    }
}
