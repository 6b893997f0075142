import Foundation

/// A NAT laboratory made by Tools/natlab.sh for one test: a WAN namespace with coturn and
/// Mosquitto, the host and the controller each behind a NAT of their own (cone or symmetric),
/// and optionally a direct LAN link between them. `down` removes all of it.
final class NatLab: Sendable {
    enum NAT: String {
        case cone
        case symmetric
    }

    let id: String
    let values: [String: String]
    private let script: URL

    var hostNamespace: String { values["ZRC_NAT_HOST_NS"] ?? "" }
    var controllerNamespace: String { values["ZRC_NAT_CTL_NS"] ?? "" }
    var wanNamespace: String { values["ZRC_NAT_WAN_NS"] ?? "" }
    var broker: String { "mqtt://\(values["ZRC_NAT_BROKER"] ?? "")" }
    var stun: String { "stun:\(values["ZRC_NAT_TURN"] ?? "")" }
    var relay: String { "turn://\(values["ZRC_NAT_TURN_USER"] ?? ""):\(values["ZRC_NAT_TURN_PASSWORD"] ?? "")@\(values["ZRC_NAT_TURN"] ?? "")" }
    var turnEndpoint: String { values["ZRC_NAT_TURN"] ?? "" }
    /// The coturn instance that takes REST credentials, given to a host by its shared secret.
    var restRelay: String { "turn:\(values["ZRC_NAT_TURN_REST"] ?? "")?secret=\(values["ZRC_NAT_TURN_SECRET"] ?? "")" }
    var restEndpoint: String { values["ZRC_NAT_TURN_REST"] ?? "" }
    var hostLANAddress: String { values["ZRC_NAT_HOST_LAN_ADDR"] ?? "" }

    /// `rate`: the host's access link shaped to this many Mbit/s each way.
    static func up(_ nat: NAT, lan: Bool, tag: String, rate: Int? = nil) async throws -> NatLab {
        guard geteuid() == 0 else { throw SetupError("the NAT tests need root (network namespaces, iptables)") }
        guard let repository = ProcessInfo.processInfo.environment["ZRC_REPOSITORY"] else {
            throw SetupError("ZRC_REPOSITORY is not set: run the tests through Tools/test.sh")
        }
        let script = URL(fileURLWithPath: repository).appendingPathComponent("Tools/natlab.sh")
        let id = "t\(tag)"
        let (status, output, errors) = try await Spawn.runOffPool([script.path, "up", "--id", id, "--nat", nat.rawValue] + (lan ? ["--lan"] : [])
            + (rate.map { ["--rate", "\($0)"] } ?? []))
        guard status == 0 else { throw SetupError("Tools/natlab.sh up failed: \(errors)") }
        var values: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let pair = line.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { values[pair[0]] = pair[1] }
        }
        return NatLab(id: id, values: values, script: script)
    }

    private init(id: String, values: [String: String], script: URL) {
        self.id = id
        self.values = values
        self.script = script
    }

    /// A lab command: `lan-down`, `restart-broker`, ….
    func command(_ name: String) async throws {
        let (status, _, errors) = try await Spawn.runOffPool([script.path, name, "--id", id])
        guard status == 0 else { throw SetupError("Tools/natlab.sh \(name) failed: \(errors)") }
    }

    func down() async {
        _ = try? await Spawn.runOffPool([script.path, "down", "--id", id])
    }
}

extension EndToEndEnvironment {
    /// Launches a ZRC program inside a network namespace.
    func launch(_ binary: String, _ arguments: [String], role: String, namespace: String, stdin: String? = nil) throws -> ZRCProcess {
        try ZRCProcess(executable: URL(fileURLWithPath: "/usr/sbin/ip"),
                       arguments: ["netns", "exec", namespace, binaries.appendingPathComponent(binary).path] + arguments,
                       environment: environment(for: role), stdin: stdin)
    }

    func run(_ binary: String, _ arguments: [String], role: String, namespace: String, stdin: String? = nil,
             timeout: Duration = .seconds(60)) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = try launch(binary, arguments, role: role, namespace: namespace, stdin: stdin)
        guard let status = await process.waitForExit(timeout: timeout) else {
            await process.terminate()
            throw SetupError("\(binary) \(arguments.joined(separator: " ")) did not finish within \(timeout)")
        }
        return (status, process.stdout, process.stderr)
    }

    /// `zrc-ctl pair` inside a namespace, the invite on standard input.
    func pair(invite: String, _ arguments: [String], role: String, namespace: String) async throws
        -> (status: Int32, stdout: String, stderr: String) {
        try await run("zrc-ctl", ["pair"] + arguments, role: role, namespace: namespace, stdin: invite + "\n")
    }

    /// Writes a role's config file (`host.json` or `controller.json`).
    func writeConfig(_ json: String, file: String, role: String) throws {
        let directory = root.appendingPathComponent(role).appendingPathComponent("config/zrc")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Data(json.utf8).write(to: directory.appendingPathComponent(file))
    }

    func dataFile(_ name: String, role: String) -> URL { root.appendingPathComponent(role).appendingPathComponent("data/zrc/\(name)") }
}
