import Foundation
import Testing

/// The project's shell scripts (Tools/, Packaging/, .ci/) pass shellcheck with no finding: the
/// scripts CI and users run get the same review as the Swift code.
@Suite("Tools/shellcheck.sh")
struct ShellScriptTests {
    @Test("every shell script is shellcheck-clean")
    func shellcheckClean() async throws {
        let script = TestServices.repositoryRoot.appendingPathComponent("Tools/shellcheck.sh").path
        let result = try await ChildProcess.run(script, [])
        #expect(result.status == 0, "\(result.transcript)")
        #expect(result.standardOutput.contains("no findings"), "\(result.transcript)")
    }
}
