import Foundation
import Testing

/// `zrc-host serve --virtual` on a machine without a display: its own Xvfb behind a cookie, a
/// window manager and a terminal in it, shared like any screen, and all of it gone when the host
/// stops.
@Suite struct VirtualDesktopTests {
    @Test func aHostWithoutADisplaySharesADesktopOfItsOwnAndRemovesIt() async throws {
        let env = try EndToEndEnvironment()
        defer { env.cleanUp() }
        let hostKey = "host-\(env.tag)", controllerKey = "ctl-\(env.tag)"
        var environment = try env.environment(for: "host")
        environment["DISPLAY"] = nil
        environment["XAUTHORITY"] = nil
        // Ways to the real desktop that must not reach the virtual one's programs (the host's own
        // DBUS_SESSION_BUS_ADDRESS is the test keyring's bus, which the host itself needs).
        let canaries = ["WAYLAND_DISPLAY": "wayland-canary", "SSH_AUTH_SOCK": "/tmp/canary-agent", "ZRC_CANARY": "1"]
        environment.merge(canaries) { $1 }
        let leaks = Array(canaries.keys) + ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"]
        let host = try ZRCProcess(executable: env.binaries.appendingPathComponent("zrc-host"),
                                  arguments: ["serve", "--virtual", "--size", "800x600", "--listen", "127.0.0.1:0", "--key-id", hostKey],
                                  environment: environment)
        var authority = "", display = "", socketInode: UInt64 = 0
        try await host.terminatingAfter {
            try #require(await host.waitForOutput("zrc-host: serving"), "\(host.stderr)")
            let line = try #require(host.stdout.split(separator: "\n").first { $0.contains("virtual desktop") }.map(String.init))
            display = try #require(line.firstMatch(of: /virtual desktop (:\d+) \(800x600\) running openbox and xterm/)?.1).description
            authority = try #require(line.firstMatch(of: /XAUTHORITY=(\S+)/)?.1).description
            // Another test's X server may take the display's socket path once this one is gone:
            // this server's socket is the file it made (its inode), and only that must go.
            socketInode = try #require(Self.inode(of: "/tmp/.X11-unix/X\(display.dropFirst())"), "no socket for \(display)")

            // Only a client with the cookie gets in.
            var outsider = ProcessInfo.processInfo.environment
            outsider["XAUTHORITY"] = "/nonexistent"
            let refused = try await Spawn.runOffPool(["xdpyinfo", "-display", display], environment: outsider)
            #expect(refused.status != 0, "a client without the cookie connected")
            var client = outsider
            client["XAUTHORITY"] = authority
            client["DISPLAY"] = display
            let admitted = try await Spawn.runOffPool(["xdpyinfo", "-display", display], environment: client)
            #expect(admitted.status == 0, "\(admitted.stderr)")
            #expect(admitted.stdout.contains("dimensions:    800x600 pixels"), "\(admitted.stdout.prefix(400))")
            // The session: a terminal with a window manager.
            var terminal = false
            let deadline = ContinuousClock.now + .seconds(30)
            while !terminal, ContinuousClock.now < deadline {
                terminal = try await Spawn.runOffPool(["xdotool", "search", "--onlyvisible", "--class", "xterm"], environment: client).status == 0
                if !terminal { try await Task.sleep(for: .milliseconds(100)) }
            }
            let search = try await Spawn.runOffPool(["xdotool", "search", "--class", "xterm"], environment: client)
            #expect(terminal, "no visible xterm window on the virtual desktop: \(search)")
            // The terminal's environment: the desktop's display, none of the host's ways out.
            let xterm = try await Spawn.runOffPool(["pgrep", "-P", "\(host.process.processIdentifier)", "-x", "xterm"])
            let xtermPID = try #require(xterm.stdout.split(separator: "\n").first, "the xterm is the host's child: \(xterm)")
            let environ = try String(decoding: Data(contentsOf: URL(fileURLWithPath: "/proc/\(xtermPID)/environ")), as: UTF8.self)
                .split(separator: "\0").map(String.init)
            #expect(environ.contains("DISPLAY=\(display)"), "\(environ)")
            for name in leaks { #expect(!environ.contains { $0.hasPrefix(name + "=") }, "\(name) reached the virtual session: \(environ)") }
            let manager = try await Spawn.runOffPool(["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], environment: client)
            #expect(manager.stdout.contains("window id"), "no window manager: \(manager.stdout) \(manager.stderr)")

            // Shared like any screen.
            let invite = try await env.invite(keyID: hostKey)
            let pair = try await env.pair(invite: invite, ["--name", "cloud", "--key-id", controllerKey], role: "controller")
            try #require(pair.status == 0, "\(pair.stderr)")
            let file = env.root.appendingPathComponent("virtual.png").path
            let shot = try await env.run("zrc-ctl", ["screenshot", "cloud", file, "--key-id", controllerKey], role: "controller")
            #expect(shot.status == 0, "\(shot.stderr)")
            #expect(shot.stdout.contains("800x600"), "\(shot.stdout)")
        }
        // Everything it started is gone, with its cookie.
        let socket = "/tmp/.X11-unix/X\(display.dropFirst())"
        let gone = await Wait.until(.seconds(20)) { Self.inode(of: socket) != socketInode ? true : nil }
        #expect(gone == true, "\(socket) is still there after the host stopped")
        #expect(!FileManager.default.fileExists(atPath: authority), "the X authority file outlived the host")
        let left = try await Spawn.runOffPool(["pgrep", "-f", "-a", authority], environment: ProcessInfo.processInfo.environment)
        #expect(left.stdout.isEmpty, "still running: \(left.stdout)")
    }

    /// The inode of the file at `path` (not followed), nil when there is none.
    static func inode(of path: String) -> UInt64? {
        var info = stat()
        return lstat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    @Test(arguments: [["--virtual", "--size", "10x10"], ["--virtual", "--size", "wide"], ["--size", "800x600"],
                      ["--virtual", "--display", ":0"]])
    func badVirtualOptionsAreUsageErrors(_ arguments: [String]) async throws {
        let env = try EndToEndEnvironment()
        defer { env.cleanUp() }
        let result = try await env.run("zrc-host", ["serve"] + arguments + ["--listen", "127.0.0.1:0"], role: "host")
        #expect(result.status == 64, "\(result.stderr)")
    }
}
