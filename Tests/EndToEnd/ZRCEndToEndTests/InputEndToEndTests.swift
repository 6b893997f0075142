import Foundation
import Testing

/// `zrc-ctl input` through a real session moves the host's pointer (XTest), checked from outside
/// with xdotool.
@Suite struct InputEndToEndTests {
    @Test func pointerInputArrivesAtTheHostsDisplay() async throws {
        let env = try EndToEndEnvironment()
        defer { env.cleanUp() }
        let display = try await PrivateDisplay.start()
        defer { display.stop() }
        let hostKey = "host-\(env.tag)", controllerKey = "ctl-\(env.tag)"
        let host = try env.launch("zrc-host", ["serve", "--listen", "127.0.0.1:0", "--key-id", hostKey, "--display", display.name, "--no-indicator"],
                                  role: "host")
        try await host.terminatingAfter {
            #expect(await host.waitForOutput("zrc-host: serving"), "\(host.stderr)")
            let invite = try await env.invite(keyID: hostKey)
            let pair = try await env.pair(invite: invite, ["--name", "desk", "--key-id", controllerKey], role: "controller")
            #expect(pair.status == 0, "\(pair.stderr)")

            for (x, y) in [(123, 456), (10, 20), (639, 479)] {
                let move = try await env.run("zrc-ctl", ["input", "move", "desk", "\(x)", "\(y)", "--key-id", controllerKey], role: "controller")
                #expect(move.status == 0, "\(move.stderr)")
                let location = try PrivateDisplay.run("/usr/bin/xdotool", ["getmouselocation"], display: display.name)
                #expect(location.hasPrefix("x:\(x) y:\(y) "), "\(location)")
            }
            let bad = try await env.run("zrc-ctl", ["input", "key", "desk", "hyper+x", "--key-id", controllerKey], role: "controller")
            #expect(bad.status == 64)
            #expect(bad.stderr.contains("not a modifier"))
        }
    }
}
