import Foundation
import Testing
import ZRCKeyStore

/// SecretServiceKeyStore when the keyring cannot be used. Each case runs the probe in a child
/// process (see ``KeyStoreProbe``) in its own environment, and checks that every operation fails
/// with the right kind and an actionable message — never by hanging on a prompt. The kind tells a
/// check (`.locked`, `.serviceUnavailable`) from the deadline (`.timedOut`); a call that hung
/// would leave no report (the child is stopped after 90 s). Time bounds here are only generous
/// sanity checks of the deadline, so a loaded machine cannot fail them.
@Suite("Secret Service key store failures (child processes)")
struct SecretServiceFailureTests {
    @Test("a locked login keyring gives .locked from the check, without waiting for a prompt")
    func lockedKeyring() async throws {
        try TestServices.requireUnlockedKeyring()
        let (report, child) = try await KeyStoreProbe.runUnderTestServices(keyring: "locked")
        try expectEveryOperation(report, child, fails: .locked, mentioning: ["locked", "unlock"])
    }

    @Test("a keyring daemon without a login keyring gives .locked, without a create-keyring prompt")
    func missingDefaultCollection() async throws {
        try TestServices.requireUnlockedKeyring()
        let (report, child) = try await KeyStoreProbe.runUnderTestServices(keyring: "absent")
        try expectEveryOperation(report, child, fails: .locked, mentioning: ["default collection", "unlock"])
    }

    @Test("a session bus without a Secret Service gives .serviceUnavailable naming org.freedesktop.secrets")
    func busWithoutSecretService() async throws {
        try TestServices.requireUnlockedKeyring()
        let (report, child) = try await KeyStoreProbe.runUnderTestServices(keyring: "none")
        try expectEveryOperation(
            report, child, fails: .serviceUnavailable,
            mentioning: ["D-Bus", "org.freedesktop.secrets", "gnome-keyring-daemon", "file key store"])
    }

    @Test("no D-Bus session bus at all gives .serviceUnavailable naming the bus and the Secret Service")
    func noSessionBus() async throws {
        try TestServices.requireUnlockedKeyring()
        let runtime = try TestServices.temporaryDirectory("no-bus-runtime")
        defer { try? FileManager.default.removeItem(at: runtime) }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtime.path)
        var environment = ProcessInfo.processInfo.environment
        for name in ["DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY"] {
            environment.removeValue(forKey: name)
        }
        // GDBus would also try $XDG_RUNTIME_DIR/bus; an empty directory has none.
        environment["XDG_RUNTIME_DIR"] = runtime.path
        let (report, child) = try await KeyStoreProbe.runDirectly(environment: environment)
        try expectEveryOperation(
            report, child, fails: .serviceUnavailable,
            mentioning: ["D-Bus session bus", "org.freedesktop.secrets", "dbus-run-session"])
    }

    @Test("a Secret Service that never answers gives .timedOut within the store's timeout")
    func unresponsiveService() async throws {
        try TestServices.requireUnlockedKeyring()
        let (report, child) = try await KeyStoreProbe.runUnderTestServices(
            keyring: "unlocked",
            extraEnvironment: [KeyStoreProbe.freezeVariable: "1", KeyStoreProbe.timeoutVariable: "700"])
        try expectEveryOperation(report, child, fails: .timedOut, mentioning: ["did not answer"])
        for outcome in report.outcomes {
            #expect(outcome.seconds < 30, "\(outcome.operation) took \(outcome.seconds) s with a 0.7 s timeout")
        }
    }

    @Test("even past the check, an unlock prompt on a display nobody watches cannot hold a call beyond its timeout")
    func promptIsBoundedByTimeout() async throws {
        try TestServices.requireUnlockedKeyring()
        // With an X display, gnome-keyring really shows gcr-prompter's unlock dialog and waits.
        let (report, child) = try await KeyStoreProbe.runUnderTestServices(
            keyring: "locked", withX: true,
            extraEnvironment: [KeyStoreProbe.skipCheckVariable: "1", KeyStoreProbe.timeoutVariable: "2000"])
        #expect(!child.timedOut, "the probe hung:\n\(child.transcript)")
        #expect(child.status == 0, "the probe child failed:\n\(child.transcript)")
        #expect(report.outcomes.map(\.operation) == ["store", "load", "delete"])
        let store = try #require(report.outcomes.first)
        #expect(store.kind == "\(KeyStoreError.Kind.timedOut)", "store: \(store.kind ?? "success") — \(store.message ?? "")")
        for outcome in report.outcomes {
            // 2 s timeout + 0.5 s grace; the rest is slack for a loaded machine (a prompt nobody
            // answers would hold the call until the child is stopped at 90 s).
            #expect(outcome.seconds < 30, "\(outcome.operation) took \(outcome.seconds) s with a 2 s timeout")
        }
    }

    private func expectEveryOperation(
        _ report: KeyStoreProbe.Report, _ child: ChildProcessResult, fails kind: KeyStoreError.Kind,
        mentioning phrases: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(!child.timedOut, "the probe hung:\n\(child.transcript)", sourceLocation: sourceLocation)
        #expect(child.status == 0, "the probe child failed:\n\(child.transcript)", sourceLocation: sourceLocation)
        #expect(report.outcomes.map(\.operation) == ["store", "load", "delete"], sourceLocation: sourceLocation)
        for outcome in report.outcomes {
            #expect(
                outcome.kind == "\(kind)", "\(outcome.operation): \(outcome.kind ?? "success") — \(outcome.message ?? "")",
                sourceLocation: sourceLocation)
            for phrase in phrases {
                #expect(
                    outcome.message?.contains(phrase) == true,
                    "\(outcome.operation): message lacks “\(phrase)”: \(outcome.message ?? "none")",
                    sourceLocation: sourceLocation)
            }
        }
    }
}
