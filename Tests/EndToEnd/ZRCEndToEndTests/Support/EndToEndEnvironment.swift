import Foundation
import Testing

/// Where the binaries are and a private set of directories per role. Requires the environment
/// Tools/test.sh provides (built binaries, a private D-Bus session with an unlocked keyring);
/// without it the tests fail with the reason instead of touching a real user's keyring.
struct EndToEndEnvironment: Sendable {
    let binaries: URL
    let root: URL
    let tag: String

    init() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let binaries = environment["ZRC_BIN_DIR"] else {
            throw SetupError("ZRC_BIN_DIR is not set: run the end-to-end tests through Tools/test.sh, which builds the binaries and sets it")
        }
        guard environment["ZRC_TEST_SERVICES"] == "1", environment["ZRC_TEST_KEYRING"] == "unlocked" else {
            throw SetupError("no private keyring: run the end-to-end tests through Tools/test.sh (Tools/with-test-services.sh)")
        }
        self.binaries = URL(fileURLWithPath: binaries)
        for name in ["zrc-host", "zrc-ctl"] where !FileManager.default.isExecutableFile(atPath: self.binaries.appendingPathComponent(name).path) {
            throw SetupError("\(name) is not built in \(binaries): run Tools/test.sh")
        }
        tag = String(UUID().uuidString.prefix(8)).lowercased()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-e2e-\(tag)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// Environment for one role: its own XDG directories, the shared test keyring.
    func environment(for role: String) throws -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        let base = root.appendingPathComponent(role)
        for (variable, folder) in [("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_RUNTIME_DIR", "run")] {
            let directory = base.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            environment[variable] = directory.path
        }
        // A home of its own: the host's file transfer root (and its Downloads) is the home
        // directory by default, which must never be the tester's.
        let home = base.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        environment["HOME"] = home.path
        return environment
    }

    func launch(_ binary: String, _ arguments: [String], role: String, stdin: String? = nil) throws -> ZRCProcess {
        try ZRCProcess(executable: binaries.appendingPathComponent(binary), arguments: arguments, environment: environment(for: role),
                       stdin: stdin)
    }

    /// Runs a command to completion; `stdin` is its standard input (else /dev/null).
    func run(_ binary: String, _ arguments: [String], role: String, stdin: String? = nil, timeout: Duration = .seconds(30)) async throws
        -> (status: Int32, stdout: String, stderr: String) {
        let process = try launch(binary, arguments, role: role, stdin: stdin)
        guard let status = await process.waitForExit(timeout: timeout) else {
            await process.terminate()
            throw SetupError("\(binary) \(arguments.joined(separator: " ")) did not finish within \(timeout)")
        }
        return (status, process.stdout, process.stderr)
    }

    /// Starts `zrc-host serve` on a loopback port (0: a free one) and returns it with its address.
    func startHost(role: String = "host", keyID: String, port: UInt16 = 0, extra: [String] = []) async throws -> (ZRCProcess, String) {
        let host = try launch("zrc-host", ["serve", "--listen", "127.0.0.1:\(port)", "--host-name", "e2e-host", "--key-id", keyID] + extra,
                              role: role)
        guard await host.waitForOutput("zrc-host: serving") else {
            await host.terminate()
            throw SetupError("zrc-host serve did not start: \(host.stderr)")
        }
        let line = host.stdout.split(separator: "\n").first { $0.contains("zrc-host: serving") } ?? ""
        guard let range = line.range(of: #"127\.0\.0\.1:\d+"#, options: .regularExpression) else {
            throw SetupError("no address in `\(line)`")
        }
        return (host, String(line[range]))
    }

    func invite(role: String = "host", keyID: String, lifetime: String = "10m") async throws -> String {
        let result = try await run("zrc-host", ["pair", "--json", "--lifetime", lifetime, "--key-id", keyID], role: role)
        guard result.status == 0 else { throw SetupError("zrc-host pair failed: \(result.stderr)") }
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        guard let invite = object?["invite"] as? String else { throw SetupError("no invite in \(result.stdout)") }
        return invite
    }

    /// `zrc-ctl pair` with the invite on standard input (never in argv: other users could read it).
    func pair(invite: String, _ arguments: [String], role: String = "controller") async throws -> (status: Int32, stdout: String, stderr: String) {
        try await run("zrc-ctl", ["pair"] + arguments, role: role, stdin: invite + "\n")
    }

    func cleanUp() { try? FileManager.default.removeItem(at: root) }
}

struct SetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
