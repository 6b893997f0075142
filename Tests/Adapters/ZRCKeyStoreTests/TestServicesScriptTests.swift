import Foundation
import Testing

/// Tools/with-test-services.sh itself: the environment it promises, its exit status, its cleanup,
/// and its refusal to run a command when a service does not start.
@Suite("Tools/with-test-services.sh")
struct TestServicesScriptTests {
    @Test("passes the command's exit status through and removes its temporary directory")
    func exitStatusAndCleanup() async throws {
        let result = try await ChildProcess.run(
            TestServices.script,
            ["--no-x", "sh", "-c",
             "echo \"$ZRC_TS_DIR|$HOME|$TMPDIR|$XDG_RUNTIME_DIR|${DISPLAY-unset}|$ZRC_TEST_KEYRING\"; "
                + "stat -c %a \"$XDG_RUNTIME_DIR\"; exit 7"])
        #expect(result.status == 7, "\(result.transcript)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        let fields = try #require(lines.first?.split(separator: "|", omittingEmptySubsequences: false).map(String.init))
        try #require(fields.count == 6, "\(result.transcript)")
        let directory = fields[0]
        #expect(directory.hasPrefix("/"))
        for inside in fields[1...3] { #expect(inside.hasPrefix(directory + "/"), "\(inside) is not under \(directory)") }
        #expect(fields[4] == "unset", "--no-x leaves no DISPLAY")
        #expect(fields[5] == "unlocked")
        #expect(lines.dropFirst().first == "700", "XDG_RUNTIME_DIR mode")
        #expect(!FileManager.default.fileExists(atPath: directory), "\(directory) was left behind")
    }

    @Test("starts an X server that answers on DISPLAY")
    func xDisplay() async throws {
        let result = try await ChildProcess.run(TestServices.script, ["sh", "-c", "xdpyinfo >/dev/null && echo \"$DISPLAY\""])
        #expect(result.status == 0, "\(result.transcript)")
        #expect(result.standardOutput.hasPrefix(":"), "\(result.transcript)")
    }

    @Test("a keyring daemon that fails to start is reported and the command never runs")
    func serviceFailure() async throws {
        let fakes = try TestServices.temporaryDirectory("fake-keyring")
        defer { try? FileManager.default.removeItem(at: fakes) }
        let fake = fakes.appendingPathComponent("gnome-keyring-daemon")
        try "#!/bin/sh\necho 'fake keyring: cannot start' >&2\nexit 1\n".write(to: fake, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)
        let marker = fakes.appendingPathComponent("command-ran")
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = fakes.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")

        let result = try await ChildProcess.run(
            TestServices.script, ["--no-x", "touch", marker.path], environment: environment)
        #expect(result.status == 2, "\(result.transcript)")
        #expect(result.standardError.contains("gnome-keyring-daemon exited before it claimed org.freedesktop.secrets"))
        #expect(result.standardError.contains("fake keyring: cannot start"), "the daemon's own message is shown")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the command ran without its services")
    }
}
