import Foundation
import Testing

/// `zrc-host serve` and `zrc-ctl` as real processes over loopback with the real (private) keyring.
@Suite(.serialized) struct PairingLifecycleTests {
    @Test func pairReconnectReuseRevokeAndChangedHostKey() async throws {
        let env = try EndToEndEnvironment()
        defer { env.cleanUp() }
        let hostKey = "host-\(env.tag)"
        let controllerKey = "ctl-\(env.tag)"
        var (host, address) = try await env.startHost(keyID: hostKey)
        do {
            // Pair with an invite.
            let invite = try await env.invite(keyID: hostKey)
            let pair = try await env.pair(invite: invite, ["--name", "desk", "--controller-name", "e2e-laptop",
                                                     "--key-id", controllerKey], role: "controller")
            #expect(pair.status == 0, "\(pair.stderr)")
            #expect(pair.stdout.contains("Paired with e2e-host as `desk`"))
            let hostIdentity = try await env.run("zrc-host", ["identity", "--key-id", hostKey], role: "host")
            let fingerprint = hostIdentity.stdout.split(separator: "\n").first?.split(separator: " ").last.map(String.init) ?? "?"
            #expect(pair.stdout.contains(fingerprint), "the controller shows the host's fingerprint")

            // Reconnect: an authenticated session with round-trip times.
            let ping = try await env.run("zrc-ctl", ["ping", "desk", "--count", "3", "--interval", "0", "--key-id", controllerKey],
                                         role: "controller")
            #expect(ping.status == 0, "\(ping.stderr)")
            #expect(ping.stdout.contains("3 replies"))

            // The keys are in the keyring, marked not synchronizable (ZRCKeyStoreTests checks the collection).
            for (role, keyID) in [("host", hostKey), ("controller", controllerKey)] {
                let search = try await SecretTool.search(keyID: keyID)
                #expect(search.contains("attribute.role = \(role)"), "\(search)")
                #expect(search.contains("attribute.synchronizable = false"), "\(search)")
            }

            // Every listing as JSON, with its documented keys.
            let devices = try await Self.json(env.run("zrc-ctl", ["devices", "--json", "--key-id", controllerKey], role: "controller"))
            let hosts = try #require(devices["hosts"] as? [[String: Any]])
            #expect(hosts.count == 1 && hosts[0]["name"] as? String == "desk" && hosts[0]["fingerprint"] as? String == fingerprint)
            #expect(Set(hosts[0].keys) == ["name", "hostName", "fingerprint", "publicKey", "addresses", "pairedAt", "lastSeen"])
            let hostJSON = try await Self.json(env.run("zrc-host", ["identity", "--json", "--key-id", hostKey], role: "host"))
            #expect(hostJSON["fingerprint"] as? String == fingerprint && (hostJSON["publicKey"] as? String)?.count == 64)
            let controllerJSON = try await Self.json(env.run("zrc-ctl", ["identity", "--json", "--key-id", controllerKey], role: "controller"))
            #expect(Set(controllerJSON.keys) == ["fingerprint", "publicKey", "controllerName"])

            // A second use of the same invite fails.
            let again = try await env.pair(invite: invite, ["--name", "desk", "--key-id", "other-\(env.tag)"],
                                          role: "controller-2")
            #expect(again.status == 4, "\(again.stdout) \(again.stderr)")
            #expect(again.stderr.contains("already used"))

            // The host lists the controller; revoking ends its live session.
            let list = try await env.run("zrc-host", ["controllers", "--key-id", hostKey], role: "host")
            #expect(list.stdout.contains("e2e-laptop"))
            let pinger = try env.launch("zrc-ctl", ["ping", "desk", "--count", "1000", "--interval", "1s", "--key-id", controllerKey],
                                        role: "controller")
            #expect(await pinger.waitForOutput("reply 1:"))
            let controllers = try await Self.json(env.run("zrc-host", ["controllers", "--json", "--key-id", hostKey], role: "host"))
            let listed = try #require((controllers["controllers"] as? [[String: Any]])?.first)
            #expect(listed["name"] as? String == "e2e-laptop" && listed["liveSessions"] as? Int == 1, "\(controllers)")
            let sessions = try await Self.json(env.run("zrc-host", ["sessions", "--json", "--key-id", hostKey], role: "host"))
            let session = try #require((sessions["sessions"] as? [[String: Any]])?.first, "\(sessions)")
            #expect(session["controller"] as? String == "e2e-laptop" && session["mode"] as? String == "control")
            #expect(Set(session.keys) == ["id", "controller", "since", "mode", "updatesPerSecond", "bytesPerSecond", "roundTripMilliseconds",
                                          "pathBitsPerSecond", "queueMilliseconds"])
            let revoke = try await env.run("zrc-host", ["controllers", "revoke", "e2e-laptop", "--key-id", hostKey], role: "host")
            #expect(revoke.status == 0, "\(revoke.stderr)")
            #expect(revoke.stdout.contains("ended 1 live session"))
            let pingerStatus = await pinger.waitForExit(timeout: .seconds(10))
            #expect(pingerStatus != nil && pingerStatus != 0)
            #expect(pinger.stderr.contains("revoked"), "\(pinger.stderr)")
            let refused = try await env.run("zrc-ctl", ["ping", "desk", "--count", "1", "--key-id", controllerKey], role: "controller")
            #expect(refused.status == 4)
            #expect(refused.stderr.contains("does not know this controller"), "\(refused.stderr)")

            // Pair again, then the host comes back at the same address with a new key.
            let secondInvite = try await env.invite(keyID: hostKey)
            let repair = try await env.pair(invite: secondInvite, ["--name", "desk", "--controller-name", "e2e-laptop",
                                                       "--key-id", controllerKey], role: "controller")
            #expect(repair.status == 0, "\(repair.stderr)")
            await host.terminate()
            let port = UInt16(address.split(separator: ":").last!)!
            (host, address) = try await env.startHost(keyID: "reinstalled-\(env.tag)", port: port)
            let changed = try await env.run("zrc-ctl", ["ping", "desk", "--count", "1", "--key-id", controllerKey], role: "controller")
            #expect(changed.status == 4)
            #expect(changed.stderr.contains("identity key is not the one pinned"), "\(changed.stderr)")
            #expect(changed.stderr.contains("unverified claim"), "a refusal is reported as unauthenticated: \(changed.stderr)")
            #expect(changed.stderr.contains("zrc-ctl forget desk"))
            #expect(await host.waitForOutput("did not decrypt with this host's key"))
        } catch {
            await host.terminate()
            throw error
        }
        await host.terminate()
        #expect(!FileManager.default.fileExists(atPath: env.root.appendingPathComponent("host/run/zrc/host.sock").path),
                "the control socket is removed on exit")
    }

    /// An invite given as an argument is refused before anything happens (other local users could
    /// read it in /proc/PID/cmdline and pair first), with what to do instead; nothing is paired,
    /// and the same invite on standard input then pairs.
    @Test func anInviteInTheArgumentsIsRefusedAndStandardInputPairs() async throws {
        let env = try EndToEndEnvironment()
        defer { env.cleanUp() }
        let hostKey = "host-\(env.tag)", controllerKey = "ctl-\(env.tag)"
        let (host, _) = try await env.startHost(keyID: hostKey)
        try await host.terminatingAfter {
            let invite = try await env.invite(keyID: hostKey)
            let refused = try await env.run("zrc-ctl", ["pair", invite, "--name", "desk", "--key-id", controllerKey], role: "controller")
            #expect(refused.status == 64, "\(refused.stdout) \(refused.stderr)")
            #expect(refused.stderr.contains("not taken as an argument") && refused.stderr.contains("/proc/PID/cmdline"), "\(refused.stderr)")
            let devices = try await env.run("zrc-ctl", ["devices", "--json", "--key-id", controllerKey], role: "controller")
            #expect(!devices.stdout.contains("desk"), "nothing was paired: \(devices.stdout)")
            let help = try await env.run("zrc-ctl", ["pair", "--help"], role: "controller")
            #expect(help.stdout.contains("never give it as an argument"), "\(help.stdout)")
            let empty = try await env.pair(invite: "", ["--name", "desk", "--key-id", controllerKey])
            #expect(empty.status == 5 && empty.stderr.contains("empty"), "\(empty.stderr)")
            let paired = try await env.pair(invite: "  \(invite)  ", ["--name", "desk", "--key-id", controllerKey])
            #expect(paired.status == 0 && paired.stdout.contains("Paired with e2e-host as `desk`"), "\(paired.stderr)")
        }
    }

    /// A stale address that reaches another ZRC host (as an invite's 127.0.0.1 does on a
    /// controller running a host of its own): a key mismatch there does not mean the paired host's
    /// key changed. With the paired host gone, the controller says what it tried (exit 3) and
    /// never advises forgetting the pairing.
    @Test func aKeyMismatchAtAStaleAddressIsAnUnreachableHostNotAChangedKey() async throws {
        let env = try EndToEndEnvironment()
        defer { env.cleanUp() }
        let hostKey = "host-\(env.tag)", otherKey = "other-\(env.tag)", controllerKey = "ctl-\(env.tag)"
        let (host, address) = try await env.startHost(keyID: hostKey)
        let (other, otherAddress) = try await env.startHost(role: "other-host", keyID: otherKey)
        try await other.terminatingAfter {
            let made = try await env.run("zrc-host", ["pair", "--json", "--address", address, "--address", otherAddress, "--key-id", hostKey],
                                         role: "host")
            let invite = try #require(try Self.json(made)["invite"] as? String)
            let pair = try await env.pair(invite: invite, ["--name", "desk", "--key-id", controllerKey])
            #expect(pair.status == 0, "\(pair.stderr)")
            await host.terminate()
            let ping = try await env.run("zrc-ctl", ["ping", "desk", "--count", "1", "--key-id", controllerKey], role: "controller")
            #expect(ping.status == 3, "unreachable, not refused: \(ping.stderr)")
            #expect(ping.stderr.contains("\(otherAddress): another ZRC host answers there"), "\(ping.stderr)")
            #expect(!ping.stderr.contains("forget"), "no advice to throw away a valid pairing: \(ping.stderr)")
        }
    }

    /// A `--json` command's output: one JSON object on one line.
    static func json(_ result: (status: Int32, stdout: String, stderr: String)) throws -> [String: Any] {
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").count == 1, "one line: \(result.stdout)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
    }

    @Test func anExpiredInviteFails() async throws {
        let env = try EndToEndEnvironment()
        defer { env.cleanUp() }
        let hostKey = "host-\(env.tag)"
        let (host, _) = try await env.startHost(keyID: hostKey)
        let invite = try await env.invite(keyID: hostKey, lifetime: "30s")
        try await Task.sleep(for: .seconds(31))
        let pair = try await env.pair(invite: invite, ["--key-id", "ctl-\(env.tag)"], role: "controller")
        await host.terminate()
        #expect(pair.status == 5, "\(pair.stderr)")
        #expect(pair.stderr.contains("expired"))
    }
}

enum SecretTool {
    static func search(keyID: String) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/secret-tool")
        process.arguments = ["search", "--all", "--unlock", "application", "zrc", "key-id", keyID]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
