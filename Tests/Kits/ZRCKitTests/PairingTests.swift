import Foundation
import Testing
import ZRCControllerKit
import ZRCHostKit
import ZRCProtocol
import ZRCStorage
import ZRCTestSupport
import ZRCKitTesting

@Suite struct PairingTests {
    @Test func pairingPinsTheHostAndAuthorizesTheController() async throws {
        let harness = try HostHarness()
        _ = try await harness.start()
        try await harness.stoppingAfter {
            let (controller, identity) = harness.controller(name: "laptop")
            let host = try await harness.pair(controller, name: "desk")
            #expect(host.name == "desk")
            #expect(host.hostName == "test-host")
            #expect(host.publicKey == harness.hostIdentity.publicKey)
            #expect(try await controller.knownHosts.host(named: "desk") == host)
            let authorized = try await harness.server.controllers.controller(withKey: identity.publicKey)
            #expect(authorized?.name == "laptop")

            let session = try await controller.connect(to: "desk")
            let rtt = try await session.ping(timeout: .seconds(60))
            #expect(rtt > .zero, "the host answered the ping")
            #expect(session.hostName == "test-host")
            await session.close()
            #expect(await session.waitUntilEnded() == .local(reason: .normal, text: "closed by the controller"))
        }
    }

    @Test func anInviteWorksOnlyOnce() async throws {
        let harness = try HostHarness()
        _ = try await harness.start()
        try await harness.stoppingAfter {
            let invite = try await harness.invite()
            let (first, _) = harness.controller(name: "one")
            _ = try await first.pair(inviteText: invite, name: "desk")
            let (second, secondIdentity) = harness.controller(name: "two")
            let error = await #expect(throws: ControllerError.self) { try await second.pair(inviteText: invite, name: "desk") }
            #expect(error?.kind == .rejected(.inviteInvalid))
            #expect(error?.message.contains("zrc-host pair") == true)
            #expect(try await harness.server.controllers.controller(withKey: secondIdentity.publicKey) == nil)
            #expect(await harness.log.waitFor("already used"))
        }
    }

    @Test func anExpiredInviteIsRefusedByTheHost() async throws {
        let harness = try HostHarness()
        _ = try await harness.start()
        try await harness.stoppingAfter {
            let invite = try await harness.invite(lifetime: 60)
            harness.clock.advance(by: 61)  // the host's clock moves past the expiry
            let (controller, _) = harness.controller()
            let error = await #expect(throws: ControllerError.self) { try await controller.pair(inviteText: invite, name: "desk") }
            #expect(error?.kind == .rejected(.inviteInvalid))
            #expect(await harness.log.waitFor("expired"))
        }
    }

    @Test func anInviteExpiredByTheControllersClockIsNotEvenTried() async throws {
        let harness = try HostHarness()
        _ = try await harness.start()
        try await harness.stoppingAfter {
            let invite = try await harness.invite(lifetime: 60)
            let (controller, _) = harness.controller()
            let error = await #expect(throws: ControllerError.self) {
                try await controller.pair(inviteText: invite, name: "desk", now: Date().addingTimeInterval(120))
            }
            #expect(error?.kind == .invalidInvite)
            #expect(error?.message.contains("expired") == true)
        }
    }

    @Test func aDamagedInviteIsRefusedBeforeConnecting() async throws {
        let harness = try HostHarness()
        let (controller, _) = harness.controller()
        let error = await #expect(throws: ControllerError.self) { try await controller.pair(inviteText: "zrc1-abcdef", name: nil) }
        #expect(error?.kind == .invalidInvite)
    }

    @Test func aWrongSecretFailsAndLeavesTheInviteUsable() async throws {
        let harness = try HostHarness()
        _ = try await harness.start()
        try await harness.stoppingAfter {
            let text = try await harness.invite()
            let invite = try Invite(parsing: text)
            var wrongSecret = invite.secret.copyBytes()
            wrongSecret[0] ^= 0xFF
            let forged = try Invite(hostKey: invite.hostKey, inviteID: invite.inviteID, secret: SecretBytes(wrongSecret),
                                    expiresAt: invite.expiresAt, addresses: invite.addresses, hostName: invite.hostName)
            let (attacker, attackerIdentity) = harness.controller(name: "mallory")
            let error = await #expect(throws: ControllerError.self) { try await attacker.pair(inviteText: forged.text, name: "desk") }
            #expect(error?.kind == .handshakeFailed)
            #expect(try await harness.server.controllers.controller(withKey: attackerIdentity.publicKey) == nil)
            // The genuine controller can still use the invite — even while the attacker keeps trying:
            // an attempt that has not proven the secret holds nothing (it used to reserve the invite).
            let attacking = Task {
                var attempts = 0
                while !Task.isCancelled, attempts < 500 {
                    attempts += 1
                    _ = try? await attacker.pair(inviteText: forged.text, name: "desk")
                }
                return attempts
            }
            let (genuine, _) = harness.controller(name: "laptop")
            for _ in 0..<5 { _ = try? await attacker.pair(inviteText: forged.text, name: "desk") }  // the loop is running
            _ = try await genuine.pair(inviteText: text, name: "desk")
            attacking.cancel()
            #expect(await attacking.value >= 1)
        }
    }
}
