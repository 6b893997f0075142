import Foundation
import Logging
import Testing
@testable import ZRCCommandSupport
import ZRCX11

/// `--virtual`'s processes: the host's own environment is never changed (it has threads), the
/// session gets only an allow-list of it, and stopping a child kills its whole group before the
/// group's leader is reaped (its ID cannot be reused meanwhile).
@Suite(.serialized) struct VirtualDesktopProcessTests {
    @Test func theSessionEnvironmentIsAnAllowList() {
        let outside = ["HOME": "/home/u", "USER": "u", "PATH": "/usr/bin", "LANG": "C.UTF-8", "LC_TIME": "de_DE", "TZ": "UTC",
                       "WAYLAND_DISPLAY": "wayland-0", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1/bus",
                       "SSH_AUTH_SOCK": "/run/user/1/ssh", "XDG_RUNTIME_DIR": "/run/user/1", "DISPLAY": ":0", "XAUTHORITY": "/home/u/.Xauthority",
                       "GNOME_KEYRING_CONTROL": "/run/user/1/keyring", "ZRC_SECRET": "x"]
        let inside = VirtualDesktop.sessionEnvironment(from: outside)
        #expect(inside == ["HOME": "/home/u", "USER": "u", "PATH": "/usr/bin", "LANG": "C.UTF-8", "LC_TIME": "de_DE", "TZ": "UTC"])
    }

    @Test func startingTheDesktopLeavesThisProcesssEnvironmentAlone() async throws {
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-virtual-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: runtime) }
        let before = ProcessInfo.processInfo.environment["XAUTHORITY"]
        let beforeC = getenv("XAUTHORITY").map { String(cString: $0) }
        let desktop = try await VirtualDesktop(width: 320, height: 200, runtime: runtime, random: { [UInt8](repeating: 7, count: $0) },
                                               windowManagerReady: { _, _ in true }, logger: Logger(label: "test"))
        #expect(getenv("XAUTHORITY").map { String(cString: $0) } == beforeC, "the process's XAUTHORITY was changed")
        #expect(ProcessInfo.processInfo.environment["XAUTHORITY"] == before)
        // This process reaches the desktop with the cookie alone; without it the server refuses.
        let connection = try X11Connection(displayName: desktop.displayName, cookie: desktop.cookie)
        #expect(connection.screen.width == 320)
        #expect(throws: X11Error.self) { try X11Connection(displayName: desktop.displayName, cookie: [UInt8](repeating: 1, count: 16)) }
        await desktop.stop()
    }

    /// A program that leaves something running in its group and ends at once: `stop` kills what is
    /// left and reaps the program.
    @Test func stoppingAChildKillsWhatItsGroupLeftAndReapsIt() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-child-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: file) }
        let child = try ChildProcess(["/bin/sh", "-c", "sleep 300 & echo $! > \(file.path)"], environment: ["PATH": "/usr/bin:/bin"])
        var left: pid_t?
        let deadline = ContinuousClock.now + .seconds(20)
        while left == nil, ContinuousClock.now < deadline {
            left = (try? String(contentsOf: file, encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if left == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        let sleeper = try #require(left)
        // The shell has ended (or will): isRunning looks without reaping it.
        while child.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(kill(child.pid, 0) == 0, "the ended program is still unreaped, holding its group's ID")
        await child.stop()
        var status: Int32 = 0
        #expect(waitpid(child.pid, &status, WNOHANG) == -1 && errno == ECHILD, "stop reaped it")
        // Dead: gone, or a zombie waiting for whoever adopted it.
        func alive() -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(sleeper)/stat", encoding: .utf8) else { return false }
            return stat.split(separator: ")").last?.split(separator: " ").first != "Z"
        }
        let killDeadline = ContinuousClock.now + .seconds(20)
        while alive(), ContinuousClock.now < killDeadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!alive(), "what the group left behind was killed")
    }
}
