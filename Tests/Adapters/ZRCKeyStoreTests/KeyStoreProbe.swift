import Foundation
import Testing
@testable import ZRCKeyStore

/// Runs SecretServiceKeyStore in a child process set up by a test.
///
/// Why a child: libsecret and GDBus keep one Secret Service proxy and one session-bus connection
/// per process, so a "no bus", "no service" or "locked keyring" case cannot be staged inside the
/// test process that already talks to the unlocked test keyring. The parent starts this same test
/// binary — usually under `Tools/with-test-services.sh --keyring=MODE` — with the filter below and
/// `ZRC_KEYSTORE_PROBE_OUT` set; the probe runs store, load and delete and writes a JSON report.
enum KeyStoreProbe {
    static let outputVariable = "ZRC_KEYSTORE_PROBE_OUT"
    /// When set, the probe stops (SIGSTOP) the keyring daemon first, so it owns its bus name but
    /// answers nothing, and resumes it afterwards.
    static let freezeVariable = "ZRC_KEYSTORE_PROBE_FREEZE_KEYRING"
    static let timeoutVariable = "ZRC_KEYSTORE_PROBE_TIMEOUT_MS"
    /// When set, the probe turns off the default-collection check, so libsecret itself meets the
    /// locked keyring (and asks for an unlock prompt); only the deadline can bound that.
    static let skipCheckVariable = "ZRC_KEYSTORE_PROBE_SKIP_CHECK"
    static let testFilter = "keyStoreProbeEntryPoint"

    struct Outcome: Codable {
        var operation: String
        /// `nil` when the operation succeeded.
        var kind: String?
        var message: String?
        var seconds: Double
    }

    struct Report: Codable {
        var outcomes: [Outcome]
    }

    /// Runs the probe in a fresh test environment of the given keyring mode and returns its report.
    static func runUnderTestServices(
        keyring mode: String, withX: Bool = false, extraEnvironment: [String: String] = [:]
    ) async throws -> (Report, ChildProcessResult) {
        try await run(
            executable: TestServices.script,
            prefixArguments: (withX ? [] : ["--no-x"]) + ["--keyring=\(mode)", "--", try TestServices.testBinary()],
            environment: ProcessInfo.processInfo.environment.merging(extraEnvironment) { $1 })
    }

    /// Runs the probe with exactly `environment`, without the test-services script.
    static func runDirectly(environment: [String: String]) async throws -> (Report, ChildProcessResult) {
        try await run(executable: try TestServices.testBinary(), prefixArguments: [], environment: environment)
    }

    private static func run(
        executable: String, prefixArguments: [String], environment: [String: String]
    ) async throws -> (Report, ChildProcessResult) {
        let directory = try TestServices.temporaryDirectory("probe")
        defer { try? FileManager.default.removeItem(at: directory) }
        let reportURL = directory.appendingPathComponent("report.json")
        var environment = environment
        environment[outputVariable] = reportURL.path
        let result = try await ChildProcess.run(
            executable, prefixArguments + ["--testing-library", "swift-testing", "--filter", testFilter],
            environment: environment, timeout: .seconds(90))
        let data = try #require(
            try? Data(contentsOf: reportURL), "The probe child wrote no report.\n\(result.transcript)")
        return (try JSONDecoder().decode(Report.self, from: data), result)
    }

    /// The probe itself, in the child.
    static func probe(outputPath: String) throws {
        let environment = ProcessInfo.processInfo.environment
        let milliseconds = Int(environment[timeoutVariable] ?? "") ?? 5000
        let store = SecretServiceKeyStore(
            timeout: .milliseconds(milliseconds), checksDefaultCollection: environment[skipCheckVariable] == nil)
        let frozen = environment[freezeVariable] != nil ? Int32(environment["ZRC_TEST_KEYRING_PID"] ?? "") : nil
        if let frozen { kill(frozen, SIGSTOP) }
        defer { if let frozen { kill(frozen, SIGCONT) } }

        let key = TestServices.randomKey()
        let operations: [(String, () throws -> Void)] = [
            ("store", { () throws in try store.store(key, role: .host, keyID: "probe", label: "probe") }),
            ("load", { () throws in _ = try store.load(role: .host, keyID: "probe") }),
            ("delete", { () throws in try store.delete(role: .host, keyID: "probe") }),
        ]
        var outcomes: [Outcome] = []
        for (name, operation) in operations {
            let clock = ContinuousClock()
            let start = clock.now
            do {
                try operation()
                outcomes.append(Outcome(operation: name, kind: nil, message: nil, seconds: (clock.now - start).seconds))
            } catch let error as KeyStoreError {
                outcomes.append(
                    Outcome(operation: name, kind: "\(error.kind)", message: error.message, seconds: (clock.now - start).seconds))
            }
        }
        try JSONEncoder().encode(Report(outcomes: outcomes)).write(to: URL(fileURLWithPath: outputPath))
    }
}

/// The child-process entry point; see ``KeyStoreProbe``. It does nothing, and is reported as
/// skipped, when a person runs the test suite.
@Test(
    "Child-process probe: runs only when another test starts it",
    .enabled(if: ProcessInfo.processInfo.environment[KeyStoreProbe.outputVariable] != nil))
func keyStoreProbeEntryPoint() throws {
    try KeyStoreProbe.probe(outputPath: try #require(ProcessInfo.processInfo.environment[KeyStoreProbe.outputVariable]))
}
