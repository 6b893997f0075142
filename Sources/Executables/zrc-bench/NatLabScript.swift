import ArgumentParser
import Foundation
import ZRCSystem

/// Tools/natlab.sh driven from the benchmark. Run with posix_spawn and waitpid and nothing of
/// ours inherited: the script leaves daemons behind (coturn, Mosquitto), and Foundation's Process
/// sometimes never notices such a script exit.
struct NatLabScript {
    let script: String
    let id: String
    private(set) var values: [String: String] = [:]

    init(script: String, id: String) throws {
        guard FileManager.default.isExecutableFile(atPath: script) else {
            throw ValidationError("\(script) not found: run zrc-bench reach from the repository (Tools/bench.sh reach), or pass --natlab")
        }
        self.script = script
        self.id = id
    }

    mutating func up(nat: String, rateMbit: Int?) throws {
        let output = try run(["up", "--id", id, "--nat", nat, "--lan"] + (rateMbit.map { ["--rate", "\($0)"] } ?? []))
        for line in output.split(separator: "\n") {
            let pair = line.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { values[pair[0]] = pair[1] }
        }
    }

    func command(_ name: String) throws { _ = try run([name, "--id", id]) }

    func down() { _ = try? run(["down", "--id", id]) }

    subscript(key: String) -> String { values[key] ?? "" }

    @discardableResult
    private func run(_ arguments: [String]) throws -> String {
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("natlab-\(UUID().uuidString)").path
        defer { unlink(outputFile) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([script] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, script, &actions, nil, argv, environ)
        guard result == 0 else { throw ValidationError("cannot run \(script): \(SystemCall.describe(result))") }
        var status: Int32 = 0
        do {
            try SystemCall.retrying("waitpid") { waitpid(pid, &status, 0) }
        } catch {
            throw ValidationError("\(error)")
        }
        let output = (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? ""
        guard status == 0 else { throw ValidationError("\(script) \(arguments.joined(separator: " ")) failed: \(output)") }
        return output
    }
}
