import Foundation
import Testing
import ZRCXTestSupport

/// Reaching a host anywhere, with the real engines (coturn, Mosquitto, libnice) behind real NATs
/// made of network namespaces (Tools/natlab.sh): a controller that paired on the LAN finds the
/// host again through the rendezvous once the LAN is gone, directly when the NATs allow it and
/// through the relay when they do not.
@Suite(.serialized) struct NATReachTests {
    /// Host and controller configs for the lab, pairing over the LAN link, then the LAN goes.
    struct Rig {
        let env: EndToEndEnvironment
        let lab: NatLab
        let host: ZRCProcess
        let display: PrivateDisplay

        static func start(_ nat: NatLab.NAT, controllerConfig: String = #"{"keyStore": "file"}"#, rate: Int? = nil) async throws -> Rig {
            let env = try EndToEndEnvironment()
            let lab: NatLab
            do {
                lab = try await NatLab.up(nat, lan: true, tag: env.tag, rate: rate)
            } catch {
                env.cleanUp()
                throw error
            }
            do {
                let display = try await PrivateDisplay.start()
                try env.writeConfig("""
                    {"keyStore": "file", "listen": "0.0.0.0:7420", "rendezvousUrls": ["\(lab.broker)"], "stunUrls": ["\(lab.stun)"],
                     "relayUrls": ["\(lab.relay)", "\(lab.restRelay)"], "lanDiscovery": false}
                    """, file: "host.json", role: "host")
                try env.writeConfig(controllerConfig, file: "controller.json", role: "controller")
                let host = try env.launch("zrc-host", ["serve", "--host-name", "natted", "--display", display.name, "--no-indicator", "--log-level", "info"],
                                          role: "host", namespace: lab.hostNamespace)
                guard await host.waitForOutput("rendezvous: listening for controllers", timeout: .seconds(30)) else {
                    await host.terminate()
                    throw SetupError("zrc-host did not reach the rendezvous: \(host.stderr)")
                }
                let invite = try await env.run("zrc-host", ["pair", "--json", "--address", lab.hostLANAddress], role: "host",
                                               namespace: lab.hostNamespace)
                let object = try JSONSerialization.jsonObject(with: Data(invite.stdout.utf8)) as? [String: Any]
                guard let text = object?["invite"] as? String else { throw SetupError("no invite: \(invite.stderr)") }
                let pair = try await env.pair(invite: text, ["--name", "far"], role: "controller", namespace: lab.controllerNamespace)
                guard pair.status == 0 else { throw SetupError("pairing over the LAN failed: \(pair.stderr)") }
                try await lab.command("lan-down")
                return Rig(env: env, lab: lab, host: host, display: display)
            } catch {
                await lab.down()
                env.cleanUp()
                throw error
            }
        }

        func ctl(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await env.run("zrc-ctl", arguments, role: "controller", namespace: lab.controllerNamespace, timeout: timeout)
        }

        func stop() async {
            await host.terminate()
            display.stop()
            await lab.down()
            env.cleanUp()
        }
    }

    /// Frames come back (a screenshot of the host's screen) and input arrives (the pointer moves).
    func expectFramesAndInput(_ rig: Rig) async throws {
        let shot = rig.env.root.appendingPathComponent("shot.png")
        let screenshot = try await rig.ctl(["screenshot", "far", shot.path])
        #expect(screenshot.status == 0, "\(screenshot.stderr)")
        let png = try Data(contentsOf: shot)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
        let move = try await rig.ctl(["input", "move", "far", "321", "123"])
        #expect(move.status == 0, "\(move.stderr)")
        let location = try PrivateDisplay.run("/usr/bin/xdotool", ["getmouselocation"], display: rig.display.name)
        #expect(location.hasPrefix("x:321 y:123 "), "\(location)")
    }

    @Test func coneNATsConnectDirectlyThroughTheRendezvous() async throws {
        let rig = try await Rig.start(.cone)
        do {
            let ping = try await rig.ctl(["ping", "far", "-c", "2", "--interval", "0.1s"])
            #expect(ping.status == 0, "\(ping.stderr)")
            #expect(ping.stdout.contains("over ICE direct (srflx)"), "\(ping.stdout)")
            try await expectFramesAndInput(rig)
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    @Test func symmetricNATsGoThroughTheRelayAndDirectRefusesClearly() async throws {
        let rig = try await Rig.start(.symmetric)
        do {
            let ping = try await rig.ctl(["ping", "far", "-c", "2", "--interval", "0.1s"])
            #expect(ping.status == 0, "\(ping.stderr)")
            // Through one of the host's relays (static login or REST secret: both allocate for it).
            #expect(ping.stdout.contains("over relay via \(rig.lab.turnEndpoint)") || ping.stdout.contains("over relay via \(rig.lab.restEndpoint)"),
                    "\(ping.stdout)")
            try await expectFramesAndInput(rig)

            // Relay only with no relay of this side's own: the host's REST relay, with the
            // day's credentials the host handed over in the pairing (its invite named the relays
            // without any; the static login never left the host).
            let hosts = rig.env.dataFile("known-hosts.json", role: "controller")
            #expect(!(try String(contentsOf: hosts, encoding: .utf8)).contains("zrcpass"), "no static password reached the controller")
            try rig.env.writeConfig(#"{"keyStore": "file", "transportPreference": "relay"}"#, file: "controller.json", role: "controller")
            let restOnly = try await rig.ctl(["ping", "far", "-c", "1"])
            #expect(restOnly.status == 0, "\(restOnly.stderr)")
            #expect(restOnly.stdout.contains("over relay via \(rig.lab.restEndpoint)"), "\(restOnly.stdout)")

            // Relay only (privacy), reaching the relay over TURN-TCP: the relay still carries it.
            // Only this side's relay: the one the host's invite named is forgotten.
            var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: hosts)) as? [String: Any])
            var entries = try #require(document["hosts"] as? [[String: Any]])
            entries[0]["relayUrls"] = nil
            document["hosts"] = entries
            try JSONSerialization.data(withJSONObject: document).write(to: hosts)
            let tcpRelay = rig.lab.relay + "?transport=tcp"
            try rig.env.writeConfig(#"{"keyStore": "file", "transportPreference": "relay", "relayUrls": ["\#(tcpRelay)"]}"#,
                                    file: "controller.json", role: "controller")
            let relayOnly = try await rig.ctl(["ping", "far", "-c", "1"])
            #expect(relayOnly.status == 0, "\(relayOnly.stderr)")
            #expect(relayOnly.stdout.contains("over relay via"), "\(relayOnly.stdout)")

            // A relay that refuses this side's credentials is named in the error.
            let badRelay = rig.lab.relay.replacingOccurrences(of: ":zrcpass@", with: ":wrong@")
            try rig.env.writeConfig(#"{"keyStore": "file", "transportPreference": "relay", "relayUrls": ["\#(badRelay)"]}"#,
                                    file: "controller.json", role: "controller")
            let refused = try await rig.ctl(["ping", "far", "-c", "1"])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("relay") && refused.stderr.contains(rig.lab.turnEndpoint), "\(refused.stderr)")
            #expect(!refused.stderr.contains("wrong"), "no credential in the message: \(refused.stderr)")

            try rig.env.writeConfig(#"{"keyStore": "file", "transportPreference": "direct"}"#, file: "controller.json", role: "controller")
            let direct = try await rig.ctl(["ping", "far", "-c", "1"])
            #expect(direct.status != 0)
            #expect(direct.stderr.contains("ICE found no working path"), "\(direct.stderr)")
            #expect(direct.stderr.contains("transportPreference is direct"), "\(direct.stderr)")
            #expect(direct.stderr.contains("srflx"), "the error names the candidates tried: \(direct.stderr)")
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    /// Typed text crosses the WAN only encrypted: a capture on the WAN bridge during a session
    /// that types a canary never contains it, though it saw the session's packets. A wrong
    /// pinned key gets no further than the rendezvous.
    @Test func theWANSeesNoPlaintextAndAWrongKeyIsRefused() async throws {
        let rig = try await Rig.start(.symmetric)
        do {
            let capture = rig.env.root.appendingPathComponent("wan.pcap")
            let tcpdump = try ZRCProcess(executable: URL(fileURLWithPath: "/usr/sbin/ip"),
                                         arguments: ["netns", "exec", rig.lab.wanNamespace, "tcpdump", "-i", "br0", "-U", "-s", "0", "-w", capture.path],
                                         environment: ProcessInfo.processInfo.environment)
            guard await tcpdump.waitForOutput("listening on", timeout: .seconds(20)) else {
                await tcpdump.terminate()
                throw SetupError("tcpdump did not start: \(tcpdump.stderr)")
            }
            let canary = "zrc-canary-7f3a9c"
            let typed = try await rig.ctl(["input", "type", "far", canary])
            #expect(typed.status == 0, "\(typed.stderr)")
            await tcpdump.terminate()
            let packets = try Data(contentsOf: capture)
            #expect(packets.count > 10_000, "the capture saw the session (\(packets.count) bytes)")
            #expect(packets.range(of: Data(canary.utf8)) == nil, "the canary crossed the WAN in the clear")
            // Nor the host's candidates' private address, inside the sealed rendezvous.
            #expect(packets.range(of: Data("\"10.1.0.2\"".utf8)) == nil)

            // Another key pinned under the name: the host never answers for it.
            let hosts = rig.env.dataFile("known-hosts.json", role: "controller")
            var text = try String(contentsOf: hosts, encoding: .utf8)
            guard let range = text.range(of: #""publicKey" : "[0-9a-f]{64}""#, options: .regularExpression) else {
                throw SetupError("no publicKey in \(text)")
            }
            text.replaceSubrange(range, with: #""publicKey" : "\#(String(repeating: "ab", count: 32))""#)
            try Data(text.utf8).write(to: hosts)
            let wrong = try await rig.ctl(["ping", "far", "-c", "1"])
            #expect(wrong.status != 0)
            #expect(!wrong.stdout.contains("Session"), "\(wrong.stdout)")
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    /// A rendezvous server that cannot be reached is named in the error, quickly.
    @Test func anUnreachableBrokerIsNamed() async throws {
        let env = try EndToEndEnvironment()
        defer { env.cleanUp() }
        try env.writeConfig(#"{"keyStore": "file", "transportPreference": "mesh"}"#, file: "controller.json", role: "controller")
        let hosts = env.dataFile("known-hosts.json", role: "controller")
        try FileManager.default.createDirectory(at: hosts.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try Data("""
            {"version": 1, "hosts": [{"name": "far", "hostName": "far", "publicKey": "\(String(repeating: "42", count: 32))",
             "addresses": ["127.0.0.1:9"], "pairedAt": "2026-11-26T00:00:00Z", "rendezvousUrls": ["mqtt://zrc:hunter2@127.0.0.1:9"]}]}
            """.utf8).write(to: hosts)
        chmod(hosts.path, 0o600)
        let ping = try await env.run("zrc-ctl", ["ping", "far", "-c", "1"], role: "controller")
        #expect(ping.status == 3, "\(ping.stderr)")
        #expect(ping.stderr.contains("rendezvous broker mqtt://127.0.0.1:9"), "\(ping.stderr)")
        #expect(!ping.stderr.contains("hunter2"))
    }

    /// The broker going away does not touch a running session, and the host listens again once
    /// it is back: a new connection through it works.
    @Test func aBrokerRestartLeavesSessionsAloneAndNewOnesWork() async throws {
        let rig = try await Rig.start(.cone)
        do {
            let long = try rig.env.launch("zrc-ctl", ["ping", "far", "-c", "30", "--interval", "0.2s"], role: "controller",
                                          namespace: rig.lab.controllerNamespace)
            #expect(await long.waitForOutput("reply 2:", timeout: .seconds(30)), "\(long.stderr)")
            try await rig.lab.command("restart-broker")
            guard let status = await long.waitForExit(timeout: .seconds(60)) else {
                await long.terminate()
                throw SetupError("the ping session did not end")
            }
            #expect(status == 0, "\(long.stderr)")
            #expect(long.stdout.contains("30 replies"), "\(long.stdout)")
            #expect(await rig.host.waitForOutput("connected to \(rig.lab.broker) again", timeout: .seconds(60)), "\(rig.host.stderr)")
            let again = try await rig.ctl(["ping", "far", "-c", "1"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.contains("over ICE direct"), "\(again.stdout)")
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    /// On a 5 Mbit/s path a noise block arrives as JPEG first and exactly only later: the
    /// screenshot waits for the exact picture (the wait grows with the path) and is pixel-exact;
    /// with a deadline too short for that it saves nothing and says why.
    @Test func aScreenshotOnASlowPathIsExactOrNothing() async throws {
        let rig = try await Rig.start(.cone, rate: 5)
        do {
            let noise = try NoiseWindow(display: rig.display.name, x: 80, y: 60, width: 480, height: 360, seed: 0x5EED)
            defer { withExtendedLifetime(noise) {} }
            let shot = rig.env.root.appendingPathComponent("slow.png")
            let tooShort = try await rig.ctl(["screenshot", "far", shot.path, "--timeout", "1s"])
            #expect(tooShort.status != 0, "\(tooShort.stdout)")
            #expect(tooShort.stderr.contains("not yet exact") || tooShort.stderr.contains("no screen within"), "\(tooShort.stderr)")
            #expect(!FileManager.default.fileExists(atPath: shot.path), "nothing saved")

            let saved = try await rig.ctl(["screenshot", "far", shot.path], timeout: .seconds(180))
            #expect(saved.status == 0, "\(saved.stderr)")
            let png = try await IndependentPNGReader.read(shot.path)
            let screen = try XScreenshot(display: rig.display.name)
            var different = 0
            for y in 0..<screen.height {
                for x in 0..<screen.width where png.pixel(x: x, y: y) != screen.pixel(x: x, y: y) { different += 1 }
            }
            #expect(png.width == screen.width && png.height == screen.height)
            #expect(different == 0, "\(different) pixels differ from the host's screen")
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }
}
