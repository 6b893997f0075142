import Foundation
import Testing
import ZRCProtocol
import ZRCTestSupport

/// The environment Tools/with-test-services.sh provides, and helpers shared by the tests.
enum TestServices {
    static let environment = ProcessInfo.processInfo.environment

    static let repositoryRoot = Checkout.root

    static let script = repositoryRoot.appendingPathComponent("Tools/with-test-services.sh").path

    static let howToRun = "Run the keyring tests through the private test keyring: "
        + "`Tools/with-test-services.sh swift test --filter ZRCKeyStoreTests` (they never touch a real user's keyring)."

    /// Fails the calling test — never skips it — unless it runs inside with-test-services.sh with
    /// an unlocked keyring.
    static func requireUnlockedKeyring(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(
            environment["DBUS_SESSION_BUS_ADDRESS"] != nil,
            "No D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset). \(howToRun)", sourceLocation: sourceLocation)
        try #require(
            environment["ZRC_TEST_SERVICES"] == "1",
            "Not inside Tools/with-test-services.sh (ZRC_TEST_SERVICES is unset). \(howToRun)",
            sourceLocation: sourceLocation)
        try #require(
            environment["ZRC_TEST_KEYRING"] == "unlocked",
            "The test keyring is “\(environment["ZRC_TEST_KEYRING"] ?? "")”, these tests need “unlocked”. \(howToRun)",
            sourceLocation: sourceLocation)
    }

    /// The running test binary, so a test can start it again in another environment.
    static func testBinary() throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }

    static func uniqueKeyID(_ purpose: String) -> String {
        "test-\(purpose)-\(UUID().uuidString.lowercased())"
    }

    static func randomKey(count: Int = 32) -> SecretBytes {
        var generator = SystemRandomNumberGenerator()
        return SecretBytes(count: count) { bytes in
            for index in bytes.indices { bytes[index] = generator.next() }
        }
    }

    static func temporaryDirectory(_ purpose: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-\(purpose)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// The result of a finished child process.
struct ChildProcessResult {
    var status: Int32
    var standardOutput: String
    var standardError: String
    var timedOut: Bool
    var seconds: Double

    var transcript: String {
        "exit status \(status)\(timedOut ? " (killed after timeout)" : "") after \(seconds) s\n"
            + "--- stdout\n\(standardOutput)\n--- stderr\n\(standardError)"
    }
}

enum ChildProcess {
    /// Runs `executable` with `arguments` and stops it after `timeout`. Output goes through files,
    /// so a chatty child can never block on a full pipe.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> ChildProcessResult {
        let directory = try TestServices.temporaryDirectory("child")
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        try #require(FileManager.default.createFile(atPath: outURL.path, contents: nil))
        try #require(FileManager.default.createFile(atPath: errURL.path, contents: nil))
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        let clock = ContinuousClock()
        let start = clock.now
        try process.run()
        var timedOut = false
        while process.isRunning {
            if clock.now - start > timeout {
                timedOut = true
                process.terminate()
                let killAt = clock.now + .seconds(10)
                while process.isRunning, clock.now < killAt { try await Task.sleep(for: .milliseconds(50)) }
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.waitUntilExit()
        let elapsed = clock.now - start
        try out.close()
        try err.close()
        return ChildProcessResult(
            status: process.terminationStatus,
            standardOutput: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "",
            timedOut: timedOut,
            seconds: elapsed.seconds)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
