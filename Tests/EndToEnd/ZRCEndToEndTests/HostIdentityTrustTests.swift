import Foundation
import Testing

/// One user's host identities (`--key-id`) each trust only the controllers paired with them: a
/// controller paired with one must be refused by another, even when it knows that one's key.
@Suite struct HostIdentityTrustTests {
    @Test func pairingWithOneHostIdentityDoesNotAuthorizeOnAnother() async throws {
        let env = try EndToEndEnvironment()
        defer { env.cleanUp() }
        let first = "host-a-\(env.tag)", second = "host-b-\(env.tag)", controllerKey = "ctl-\(env.tag)"
        let (hostA, _) = try await env.startHost(keyID: first)
        try await hostA.terminatingAfter {
            let (hostB, addressB) = try await env.startHost(keyID: second)
            try await hostB.terminatingAfter {
                let pair = try await env.pair(invite: try await env.invite(keyID: first), ["--name", "a",
                                                         "--key-id", controllerKey], role: "controller")
                #expect(pair.status == 0, "\(pair.stderr)")

                // The controller learns B's real key and address (as if it had been told them), but
                // was never paired with B.
                let identity = try await env.run("zrc-host", ["identity", "--key-id", second], role: "host")
                let keyLine = identity.stdout.split(separator: "\n").first { $0.hasPrefix("Public key: ") } ?? ""
                let publicKey = String(keyLine.dropFirst("Public key: ".count))
                #expect(publicKey.count == 64, "\(identity.stdout)")
                let knownHosts = try env.environment(for: "controller")["XDG_DATA_HOME"].map {
                    URL(fileURLWithPath: $0).appendingPathComponent("zrc/known-hosts.json")
                }
                let file = try #require(knownHosts)
                var document = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any] ?? [:]
                var hosts = document["hosts"] as? [[String: Any]] ?? []
                hosts.append(["name": "b", "hostName": "e2e-host", "publicKey": publicKey, "addresses": [addressB],
                              "pairedAt": "2026-11-24T00:00:00Z"])
                document["hosts"] = hosts
                try JSONSerialization.data(withJSONObject: document).write(to: file)
                chmod(file.path, 0o600)

                let toB = try await env.run("zrc-ctl", ["ping", "b", "--count", "1", "--key-id", controllerKey], role: "controller")
                #expect(toB.status == 4, "host B refuses a controller paired only with A: \(toB.stdout) \(toB.stderr)")
                #expect(toB.stderr.contains("does not know this controller"), "\(toB.stderr)")
                let toA = try await env.run("zrc-ctl", ["ping", "a", "--count", "1", "--key-id", controllerKey], role: "controller")
                #expect(toA.status == 0, "\(toA.stderr)")

                let listedB = try await env.run("zrc-host", ["controllers", "--key-id", second], role: "host")
                #expect(listedB.stdout.contains("No paired controllers"), "\(listedB.stdout)")
            }
        }
    }
}
