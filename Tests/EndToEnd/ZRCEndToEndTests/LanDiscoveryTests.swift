import Foundation
import Testing

/// LAN discovery with the real engine: a LAN of network namespaces (Tools/mdnslab.sh), each node
/// with a D-Bus system bus and an avahi-daemon of its own; two hosts publish, a controller scans.
@Suite struct LanDiscoveryTests {
    @Test func devicesScanListsTheHostsOnTheLANMarkingThePairedOne() async throws {
        guard geteuid() == 0 else { throw SetupError("the LAN discovery test needs root (network and mount namespaces)") }
        let env = try EndToEndEnvironment()
        defer { env.cleanUp() }
        guard let repository = ProcessInfo.processInfo.environment["ZRC_REPOSITORY"] else { throw SetupError("ZRC_REPOSITORY is not set") }
        let script = URL(fileURLWithPath: repository).appendingPathComponent("Tools/mdnslab.sh")
        let id = "t\(env.tag)"
        let up = try await Spawn.runOffPool([script.path, "up", "--id", id, "--hosts", "2"])
        guard up.status == 0 else { throw SetupError("Tools/mdnslab.sh up failed: \(up.stderr)") }
        defer { _ = try? Spawn.run([script.path, "down", "--id", id], environment: ProcessInfo.processInfo.environment) }

        func inNode(_ node: String, _ binary: String, _ arguments: [String], role: String) throws -> ZRCProcess {
            try ZRCProcess(executable: script, arguments: ["exec", "--id", id, node, "--", env.binaries.appendingPathComponent(binary).path] + arguments,
                           environment: env.environment(for: role))
        }
        func runInNode(_ node: String, _ binary: String, _ arguments: [String], role: String, stdin: String? = nil) async throws
            -> (Int32, String, String) {
            let result = try await Spawn.runOffPool([script.path, "exec", "--id", id, node, "--", env.binaries.appendingPathComponent(binary).path]
                + arguments, environment: try env.environment(for: role), stdin: stdin)
            return (result.status, result.stdout, result.stderr)
        }

        var hosts: [ZRCProcess] = []
        for (node, name) in [("node1", "desk-one"), ("node2", "desk-two")] {
            try env.writeConfig(#"{"keyStore": "file"}"#, file: "host.json", role: name)
            let host = try inNode(node, "zrc-host", ["serve", "--host-name", name, "--log-level", "info"], role: name)
            hosts.append(host)
            #expect(await host.waitForOutput("LAN discovery: published as `\(name)`", timeout: .seconds(30)), "\(host.stderr)")
        }
        try env.writeConfig(#"{"keyStore": "file"}"#, file: "controller.json", role: "controller")
        let invite = try await runInNode("node1", "zrc-host", ["pair", "--json"], role: "desk-one")
        let object = try JSONSerialization.jsonObject(with: Data(invite.1.utf8)) as? [String: Any]
        let text = try #require(object?["invite"] as? String, "\(invite.2)")
        let pair = try await runInNode("node0", "zrc-ctl", ["pair", "--name", "mine"], role: "controller", stdin: text)
        #expect(pair.0 == 0, "\(pair.2)")

        let scan = try await runInNode("node0", "zrc-ctl", ["devices", "--scan", "--scan-time", "3s"], role: "controller")
        #expect(scan.0 == 0, "\(scan.2)")
        let lines = scan.1.split(separator: "\n")
        #expect(lines.contains { $0.contains("desk-one") && $0.contains("10.60.0.2:7420") && $0.contains("`mine`") }, "\(scan.1)")
        #expect(lines.contains { $0.contains("desk-two") && $0.contains("10.60.0.3:7420") && $0.contains("not paired") }, "\(scan.1)")
        let scanJSON = try await runInNode("node0", "zrc-ctl", ["devices", "--scan", "--json", "--scan-time", "3s"], role: "controller")
        let announced = try #require((try JSONSerialization.jsonObject(with: Data(scanJSON.1.utf8)) as? [String: Any])?["announced"]
            as? [[String: Any]], "\(scanJSON)")
        #expect(announced.contains { $0["name"] as? String == "desk-one" && $0["pairedAs"] as? String == "mine" }, "\(announced)")
        #expect(announced.contains { $0["name"] as? String == "desk-two" && $0["pairedAs"] is NSNull }, "\(announced)")
        for host in hosts { await host.terminate() }
    }
}
