import Foundation
import Testing
import ZRCXTestSupport

/// Pairing by a short code with the real programs: `zrc-host pair --code --json` shows the code,
/// `zrc-ctl pair --code` reads it from standard input, and both print the same fingerprints —
/// on a LAN of network namespaces with Avahi (no broker), and between two NATs through Mosquitto.
@Suite(.serialized) struct CodePairingEndToEndTests {
    /// The code line `zrc-host pair --code --json` prints first.
    static func codeLine(of process: ZRCProcess) async throws -> [String: Any] {
        guard await process.waitForOutput("\"code\"", timeout: .seconds(60)),
              let line = process.stdout.split(separator: "\n").first,
              let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw SetupError("no code line: \(process.stdout) \(process.stderr)")
        }
        return object
    }

    /// The `paired` event line, once it came.
    static func pairedEvent(of process: ZRCProcess) async throws -> [String: Any] {
        guard await process.waitForOutput("\"paired\"", timeout: .seconds(60)) else {
            throw SetupError("the host never said it paired: \(process.stdout) \(process.stderr)")
        }
        for line in process.stdout.split(separator: "\n") {
            if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], object["event"] as? String == "paired" {
                return object
            }
        }
        throw SetupError("no paired event: \(process.stdout)")
    }

    static func fingerprint(after label: String, in text: String) -> String? {
        guard let range = text.range(of: label) else { return nil }
        return text[range.upperBound...].split(separator: " ").first.map(String.init)
    }

    @Test func pairsByCodeOnTheLANWithoutABroker() async throws {
        guard geteuid() == 0 else { throw SetupError("the LAN pairing test needs root (network and mount namespaces)") }
        let env = try EndToEndEnvironment()
        defer { env.cleanUp() }
        guard let repository = ProcessInfo.processInfo.environment["ZRC_REPOSITORY"] else { throw SetupError("ZRC_REPOSITORY is not set") }
        let script = URL(fileURLWithPath: repository).appendingPathComponent("Tools/mdnslab.sh")
        let id = "c\(env.tag)"
        let up = try await Spawn.runOffPool([script.path, "up", "--id", id, "--hosts", "1"])
        guard up.status == 0 else { throw SetupError("Tools/mdnslab.sh up failed: \(up.stderr)") }
        defer { _ = try? Spawn.run([script.path, "down", "--id", id], environment: ProcessInfo.processInfo.environment) }
        func inNode(_ node: String, _ binary: String, _ arguments: [String], role: String, stdin: String? = nil) throws -> ZRCProcess {
            try ZRCProcess(executable: script, arguments: ["exec", "--id", id, node, "--", env.binaries.appendingPathComponent(binary).path] + arguments,
                           environment: env.environment(for: role), stdin: stdin)
        }

        try env.writeConfig(#"{"keyStore": "file"}"#, file: "host.json", role: "host")
        try env.writeConfig(#"{"keyStore": "file"}"#, file: "controller.json", role: "controller")
        let host = try inNode("node1", "zrc-host", ["serve", "--host-name", "desk-one", "--log-level", "info"], role: "host")
        try await host.terminatingAfter {
            #expect(await host.waitForOutput("LAN discovery: published as `desk-one`", timeout: .seconds(30)), "\(host.stderr)")
            let pairing = try inNode("node1", "zrc-host", ["pair", "--code", "--json"], role: "host")
            try await pairing.terminatingAfter {
                let line = try await Self.codeLine(of: pairing)
                let code = try #require(line["code"] as? String)
                #expect(line["meetingPoints"] as? [String] == ["LAN"], "\(line)")
                #expect(line["expiresAt"] is String)
                let controller = try inNode("node0", "zrc-ctl", ["pair", "--code", "--name", "mine"], role: "controller", stdin: code + "\n")
                let status = await controller.waitForExit(timeout: .seconds(60))
                #expect(status == 0, "\(controller.stderr)")
                let event = try await Self.pairedEvent(of: pairing)
                // Both ends show the same two fingerprints.
                #expect(Self.fingerprint(after: "Host key fingerprint: ", in: controller.stdout) == line["hostFingerprint"] as? String,
                        "\(controller.stdout)")
                #expect(Self.fingerprint(after: "This controller's fingerprint: ", in: controller.stdout) == event["controllerFingerprint"] as? String,
                        "\(controller.stdout) \(event)")
                #expect(await pairing.waitForExit(timeout: .seconds(30)) == 0)
                let ping = try inNode("node0", "zrc-ctl", ["ping", "mine", "-c", "1"], role: "controller")
                #expect(await ping.waitForExit(timeout: .seconds(60)) == 0, "\(ping.stderr)")
            }
        }
    }

    @Test func pairsByCodeBetweenTwoNATsThroughTheBroker() async throws {
        let env = try EndToEndEnvironment()
        defer { env.cleanUp() }
        let lab = try await NatLab.up(.cone, lan: false, tag: env.tag)
        do {
            try env.writeConfig("""
                {"keyStore": "file", "listen": "0.0.0.0:7420", "rendezvousUrls": ["\(lab.broker)"], "stunUrls": ["\(lab.stun)"],
                 "lanDiscovery": false}
                """, file: "host.json", role: "host")
            try env.writeConfig("""
                {"keyStore": "file", "rendezvousUrls": ["\(lab.broker)"], "stunUrls": ["\(lab.stun)"]}
                """, file: "controller.json", role: "controller")
            let host = try env.launch("zrc-host", ["serve", "--host-name", "natted", "--log-level", "info"], role: "host", namespace: lab.hostNamespace)
            try await host.terminatingAfter {
                #expect(await host.waitForOutput("rendezvous: listening for controllers", timeout: .seconds(30)), "\(host.stderr)")
                let pairing = try env.launch("zrc-host", ["pair", "--code", "--json"], role: "host", namespace: lab.hostNamespace)
                try await pairing.terminatingAfter {
                    let line = try await Self.codeLine(of: pairing)
                    let code = try #require(line["code"] as? String)
                    #expect(line["meetingPoints"] as? [String] == [lab.broker], "\(line)")
                    let controller = try await env.run("zrc-ctl", ["pair", "--code", "--name", "far"], role: "controller",
                                                       namespace: lab.controllerNamespace, stdin: code + "\n")
                    #expect(controller.status == 0, "\(controller.stderr)")
                    #expect(controller.stderr.contains("Found the host (\(lab.broker))"), "\(controller.stderr)")
                    let event = try await Self.pairedEvent(of: pairing)
                    #expect(Self.fingerprint(after: "This controller's fingerprint: ", in: controller.stdout) == event["controllerFingerprint"] as? String)
                    #expect(Self.fingerprint(after: "Host key fingerprint: ", in: controller.stdout) == line["hostFingerprint"] as? String)
                    let ping = try await env.run("zrc-ctl", ["ping", "far", "-c", "1"], role: "controller", namespace: lab.controllerNamespace)
                    #expect(ping.status == 0, "\(ping.stderr)")
                    #expect(ping.stdout.contains("over ICE"), "\(ping.stdout)")
                }
            }
        } catch {
            await lab.down()
            throw error
        }
        await lab.down()
    }
}
