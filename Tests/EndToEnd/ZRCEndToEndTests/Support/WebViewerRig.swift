import Foundation
import ZRCXTestSupport
import ZRCWebTesting

/// The browser viewer's rig: the viewer tests' host and pattern (`ViewerRig`), `zrc-ctl view desk
/// --web --no-open`, and headless Chromium with the page open.
final class WebViewerRig {
    let rig: ViewerRig
    let viewer: ZRCProcess
    let url: String
    let port: Int
    let browser: BrowserDriver

    /// `arguments`: more for `zrc-ctl view` (e.g. --view-only). `viewport` and `dpr`: the
    /// browser window's CSS size and device pixel ratio.
    init(_ arguments: [String] = [], viewport: (width: Int, height: Int) = (1024, 768), dpr: Double = 1, touch: Bool = false,
         openPage: Bool = true) async throws {
        rig = try await ViewerRig()
        viewer = try rig.env.launch("zrc-ctl", ["view", "desk", "--web", "--no-open", "--key-id", rig.controllerKey, "--log-level", "info"] + arguments,
                                    role: "controller")
        let viewer = self.viewer
        guard let line = await Wait.until(.seconds(60), { () -> String? in
            viewer.stdout.split(separator: "\n").first { $0.hasPrefix("http://127.0.0.1:") }.map(String.init)
        }) else {
            throw SetupError("zrc-ctl printed no page address: \(viewer.stdout) \(viewer.stderr)")
        }
        url = line
        guard let portText = line.dropFirst("http://127.0.0.1:".count).split(separator: "/").first, let port = Int(portText) else {
            throw SetupError("no port in \(line)")
        }
        self.port = port
        browser = try await BrowserDriver.start()
        if openPage {
            try await browser.call("open", ["url": url, "width": viewport.width, "height": viewport.height, "dpr": dpr, "touch": touch])
            try await waitForPicture()
        }
    }

    /// Waits until the page has drawn a picture of the host's screen.
    func waitForPicture() async throws {
        try await browser.call("waitFor", ["expression": "window.zrcDrawn && window.zrcViewer.view.screen && window.zrcDrawn.count > 0"])
    }

    /// The client (CSS) point showing the centre of remote pixel (`x`, `y`).
    func clientPoint(remoteX x: Int, remoteY y: Int) async throws -> (x: Double, y: Double) {
        let geometry = try await browser.call("geometry")
        let left = geometry["left"] as? Double ?? 0, top = geometry["top"] as? Double ?? 0
        let width = geometry["width"] as? Double ?? 1, height = geometry["height"] as? Double ?? 1
        let screenWidth = geometry["screenWidth"] as? Double ?? 1, screenHeight = geometry["screenHeight"] as? Double ?? 1
        return (left + (Double(x) + 0.5) * width / screenWidth, top + (Double(y) + 0.5) * height / screenHeight)
    }

    /// The X client's button events from now until `count` have come (or 20 s passed).
    func buttonEvents(count: Int) async -> [TestXClient.Event] {
        var events: [TestXClient.Event] = []
        _ = await Wait.until(.seconds(20)) { () -> Bool? in
            events += rig.client.takeEvents().filter {
                switch $0 {
                case .buttonPress, .buttonRelease: true
                default: false
                }
            }
            return events.count >= count ? true : nil
        }
        return events
    }

    func close() async {
        await browser.close()
        await viewer.terminate()
        await rig.close()
    }
}
