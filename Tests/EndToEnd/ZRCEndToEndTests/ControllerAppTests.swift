import Foundation
import Testing
import ZRCWebTesting
import ZRCXTestSupport

/// `zrc-ctl app` in headless Chromium, 360 px wide with touch, against a real host on a private X
/// display and a Mosquitto broker on loopback: pair by code through the Pair screen (the host's
/// name and fingerprint shown before saving), see the device online, open its viewer in the same
/// page, change a setting and find it in controller.json, have an invalid one refused with its
/// field named, and rename and forget with the keyboard alone.
@Suite struct ControllerAppTests {
    /// Where the screenshots go (Tools/test.sh keeps them under .build/screenshots when set).
    static func screenshot(_ browser: BrowserDriver, _ name: String, root: URL) async throws {
        let directory = ProcessInfo.processInfo.environment["ZRC_SCREENSHOTS"].map { URL(fileURLWithPath: $0) } ?? root
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try await browser.call("screenshot", ["path": directory.appendingPathComponent("app-\(name).png").path])
    }

    static func isVisible(_ id: String) -> String { "!document.getElementById('\(id)').hidden" }

    @Test func pairsByCodeShowsTheDeviceOnlineOpensItAndKeepsSettings() async throws {
        let env = try EndToEndEnvironment()
        defer { env.cleanUp() }
        let broker = try await LoopbackBroker()
        let display = try await PrivateXServer.start(["-screen", "0", "640x480x24"])
        let pattern = try TestXClient(display: display.display)
        pattern.fill(x: 0, y: 0, width: 320, height: 480, pixel: TestPattern.topLeft)
        pattern.fill(x: 320, y: 0, width: 320, height: 480, pixel: TestPattern.bottomRight)
        let hostKey = "host-\(env.tag)", controllerKey = "ctl-\(env.tag)"
        for (role, file) in [("host", "host.json"), ("controller", "controller.json")] {
            let directory = try env.environment(for: role)["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0).appendingPathComponent("zrc") }!
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(#"{"rendezvousUrls": ["\#(broker.url)"]}"#.utf8).write(to: directory.appendingPathComponent(file))
        }
        let controllerConfig = URL(fileURLWithPath: try env.environment(for: "controller")["XDG_CONFIG_HOME"]!).appendingPathComponent("zrc/controller.json")
        let (host, _) = try await env.startHost(keyID: hostKey, extra: ["--display", display.display, "--no-indicator"])
        let app = try env.launch("zrc-ctl", ["app", "--no-open", "--key-id", controllerKey, "--log-level", "info"], role: "controller")
        let browser = try await BrowserDriver.start()
        do {
            guard let url = await Wait.until(.seconds(60), { () -> String? in
                app.stdout.split(separator: "\n").first { $0.hasPrefix("http://127.0.0.1:") }.map(String.init)
            }) else {
                throw SetupError("zrc-ctl app printed no address: \(app.stdout) \(app.stderr)")
            }
            try await browser.call("open", ["url": url, "width": 360, "height": 740, "touch": true])
            try await browser.call("waitFor", ["expression": Self.isVisible("devices-empty")])
            try await Self.screenshot(browser, "devices-empty", root: env.root)

            // Pair: the code the host shows, typed into the Pair screen.
            let pairing = try env.launch("zrc-host", ["pair", "--code", "--json", "--key-id", hostKey], role: "host")
            let codeLine = try await CodePairingEndToEndTests.codeLine(of: pairing)
            let code = try #require(codeLine["code"] as? String)
            let hostFingerprint = try #require(codeLine["hostFingerprint"] as? String)
            try await browser.call("click", ["selector": "#app-nav [data-screen=pair]"])
            try await Self.screenshot(browser, "pair", root: env.root)
            try await browser.call("fill", ["selector": "#pair-code", "text": code])
            try await browser.call("click", ["selector": "#pair-find"])
            try await browser.call("waitFor", ["expression": Self.isVisible("pair-found")])
            let shown = try await browser.call("text", ["selector": "#found-fingerprint"])["text"] as? String
            #expect(shown == hostFingerprint, "the page showed another host key than the host's own")
            #expect(try await browser.call("text", ["selector": "#found-host"])["text"] as? String == "e2e-host")
            #expect(!pairing.stdout.contains("\"paired\""), "the host paired before the person confirmed")
            try await Self.screenshot(browser, "pair-found", root: env.root)
            try await browser.call("fill", ["selector": "#found-name", "text": "desk"])
            try await browser.call("click", ["selector": "#found-save"])
            let paired = try await CodePairingEndToEndTests.pairedEvent(of: pairing)
            let ownFingerprint = try await browser.call("eval", ["expression": "document.getElementById('found-own').textContent"])["value"] as? String
            #expect(paired["controllerFingerprint"] as? String == ownFingerprint, "both ends see the same controller key")

            // Devices: desk, online.
            try await browser.call("waitFor", ["expression": "document.querySelector('#device-list [data-device=desk] .dot[data-state=online]') != null"])
            let reach = try await browser.call("text", ["selector": "#device-list [data-device=desk] .reach"])["text"] as? String ?? ""
            #expect(reach.contains("online") && reach.contains(" ms"), "\(reach)")
            try await Self.screenshot(browser, "devices-online", root: env.root)

            // Its viewer, in the same page.
            try await browser.call("click", ["selector": "#device-list [data-device=desk] [data-key='open:desk']"])
            try await browser.call("waitFor", ["expression": "window.zrcDrawn && window.zrcDrawn.count > 0 && window.zrcViewer.view.screen.width == 640"])
            try await browser.call("waitFor", ["expression": "document.getElementById('status').textContent.includes('connected')"])
            let left = try await browser.call("eval", ["expression": """
                (() => { const c = document.getElementById('screen'); const d = c.getContext('2d').getImageData(2, 2, 1, 1).data;
                         return [d[0], d[1], d[2]]; })()
                """])["value"] as? [Int]
            let shownColour = left.map { $0.count == 3 ? UInt32($0[0]) << 16 | UInt32($0[1]) << 8 | UInt32($0[2]) : 0 }
            #expect(shownColour.flatMap { TestPattern.quadrant(of: $0) } == TestPattern.topLeft,
                    "the page does not show the host's screen: \(String(describing: left))")
            try await Self.screenshot(browser, "viewer", root: env.root)
            try await browser.call("click", ["selector": "#disconnect"])
            try await browser.call("waitFor", ["expression": Self.isVisible("devices-screen")])

            // Settings: a change lands in controller.json; an invalid one is refused by field.
            try await browser.call("click", ["selector": "#app-nav [data-screen=settings]"])
            try await browser.call("waitFor", ["expression": "document.querySelector('#settings-form [name=transportPreference]').options.length > 0"])
            try await browser.call("select", ["selector": "#settings-form [name=transportPreference]", "value": "direct"])
            try await browser.call("select", ["selector": "#settings-form [name=renderer]", "value": "sixel"])
            try await browser.call("click", ["selector": "#settings-form button[type=submit]"])
            try await browser.call("waitFor", ["expression": "document.getElementById('app-notice').textContent === 'Settings saved.'"])
            let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: controllerConfig)) as? [String: Any]
            #expect(saved?["transportPreference"] as? String == "direct")
            #expect(saved?["renderer"] as? String == "sixel")
            #expect(saved?["rendezvousUrls"] as? [String] == [broker.url], "the other fields stay")
            var info = stat()
            #expect(lstat(controllerConfig.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
            try await browser.call("fill", ["selector": "#settings-form [name=relayUrls]", "text": "http://relay.example"])
            try await browser.call("click", ["selector": "#settings-form button[type=submit]"])
            try await browser.call("waitFor", ["expression": "document.getElementById('settings-error').textContent.length > 0"])
            let refusal = try await browser.call("text", ["selector": "#settings-error"])["text"] as? String ?? ""
            #expect(refusal.contains("relayUrls"), "\(refusal)")
            let marked = try await browser.call("eval", ["expression": "document.querySelector('#settings-form [name=relayUrls]').getAttribute('aria-invalid')"])
            #expect(marked["value"] as? String == "true")
            let unchanged = try JSONSerialization.jsonObject(with: Data(contentsOf: controllerConfig)) as? [String: Any]
            #expect((unchanged?["relayUrls"] as? [String] ?? []).isEmpty, "an invalid setting reached the file")
            try await Self.screenshot(browser, "settings-refused", root: env.root)

            // The keyboard alone: rename desk, then forget it (with its confirmation).
            try await browser.call("click", ["selector": "#app-nav [data-screen=devices]"])
            try await browser.call("waitFor", ["expression": "document.querySelector(\"[data-key='rename:desk']\") != null"])
            #expect(try await Self.tab(browser, to: "rename:desk"), "Tab never reached Rename")
            try await browser.call("press", ["key": "Enter"])
            try await browser.call("press", ["key": "Control+A"])
            try await browser.call("typeText", ["text": "office"])
            try await browser.call("press", ["key": "Enter"])
            try await browser.call("waitFor", ["expression": "document.querySelector('#device-list [data-device=office]') != null"])
            #expect(try await Self.tab(browser, to: "forget:office"), "Tab never reached Forget")
            try await browser.call("press", ["key": "Enter"])
            try await browser.call("waitFor", ["expression": "document.getElementById('forget-dialog').open"])
            try await Self.screenshot(browser, "forget-confirm", root: env.root)
            try await browser.call("press", ["key": "Tab"])
            try await browser.call("press", ["key": "Enter"])
            try await browser.call("waitFor", ["expression": Self.isVisible("devices-empty")])
            let devices = try await env.run("zrc-ctl", ["devices", "--json", "--key-id", controllerKey], role: "controller")
            #expect(devices.stdout.contains("\"hosts\":[]"), "\(devices.stdout)")
            let errors = try await browser.call("eval", ["expression": "window.zrcErrors ?? []"])["value"] as? [Any] ?? []
            #expect(errors.isEmpty, "\(errors)")
        } catch {
            Issue.record("\(error)\napp: \(app.stderr.suffix(2000))")
        }
        await browser.close()
        await app.terminate()
        await host.terminate()
        await broker.stop()
    }

    /// Presses Tab until the element with `data-key` `key` has the focus (at most 40 times).
    static func tab(_ browser: BrowserDriver, to key: String) async throws -> Bool {
        for _ in 0..<40 {
            try await browser.call("press", ["key": "Tab"])
            let focused = try await browser.call("focused")["value"] as? [String: Any]
            if focused?["key"] as? String == key { return true }
        }
        return false
    }
}

/// `zrc-ctl app`'s API as another local user or a DNS-rebound page would call it, and from a
/// page of another origin in the same browser: nothing gets in without the page's cookie.
@Suite struct ControllerAppSecurityTests {
    @Test func theAPIRefusesEveryoneButThePage() async throws {
        let env = try EndToEndEnvironment()
        defer { env.cleanUp() }
        let app = try env.launch("zrc-ctl", ["app", "--no-open", "--key-id", "ctl-\(env.tag)"], role: "controller")
        let browser = try await BrowserDriver.start()
        do {
            guard let url = await Wait.until(.seconds(60), { () -> String? in
                app.stdout.split(separator: "\n").first { $0.hasPrefix("http://127.0.0.1:") }.map(String.init)
            }), let port = Int(url.dropFirst("http://127.0.0.1:".count).prefix { $0.isNumber }) else {
                throw SetupError("zrc-ctl app printed no address: \(app.stdout) \(app.stderr)")
            }
            let own = "http://127.0.0.1:\(port)"
            let settings = #"{"settings": {"relayUrls": ["turn://eve:pw@relay.evil.example"]}}"#
            // A raw request with the right Host and Origin but no cookie; a rebound name; a GET.
            for (lines, status) in [
                (["POST /api/settings/set HTTP/1.1", "Host: 127.0.0.1:\(port)", "Origin: \(own)"], 403),
                (["POST /api/settings/set HTTP/1.1", "Host: evil.example:\(port)", "Origin: http://evil.example:\(port)"], 403),
                (["GET /api/devices HTTP/1.1", "Host: 127.0.0.1:\(port)"], 405),
            ] {
                let answer = try await RawHTTP.exchange(port: port, lines + ["Content-Type: application/json",
                                                                             "Content-Length: \(settings.utf8.count)", "Connection: close"], body: settings)
                #expect(answer.status == status, "\(lines[0]) \(lines[1]): \(answer.head)")
            }
            // The app's page itself is open (it holds nothing), with the strict headers.
            let page = try await RawHTTP.exchange(port: port, ["GET / HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"])
            #expect(page.status == 200 && page.body.contains("data-app"), "\(page.head)")
            #expect(page.header("Content-Security-Policy")?.contains("unsafe-inline") == false)
            // A page of another origin in the browser that holds the cookie.
            try await browser.call("open", ["url": url])
            try await browser.call("waitFor", ["expression": "!document.getElementById('devices-empty').hidden"])
            let foreign = try await browser.call("foreignFetch", ["foreign_url": "http://localhost:\(port)/", "target": "\(own)/api/settings/set", "body": settings])
            #expect(foreign["value"] as? String != "200", "another origin's page changed the settings: \(foreign)")
            let config = URL(fileURLWithPath: try env.environment(for: "controller")["XDG_CONFIG_HOME"]!).appendingPathComponent("zrc/controller.json")
            #expect(!FileManager.default.fileExists(atPath: config.path) || !((try? String(contentsOf: config, encoding: .utf8)) ?? "").contains("evil"),
                    "the attacker's relay reached controller.json")
        } catch {
            Issue.record("\(error)\napp: \(app.stderr.suffix(2000))")
        }
        await browser.close()
        await app.terminate()
    }
}
