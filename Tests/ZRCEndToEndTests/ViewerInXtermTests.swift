import Foundation
import Testing
import ZRCXTestSupport

/// `zrc-ctl view` in xterm with sixel graphics, on an X display of its own: what a person would
/// see on that screen, and a real mouse click on the xterm window arriving on the host.
extension ViewerInRealTerminals {
@Suite struct ViewerInXtermTests {
    @Test func sixelShowsThePatternAndAClickLandsOnTheMappedRemotePixel() async throws {
        let rig = try await ViewerRig()
        let viewer = try await PrivateXServer.start(["-screen", "0", "1024x768x24"])
        let files = rig.files("xterm")
        var environment = try rig.env.environment(for: "controller")
        environment["DISPLAY"] = viewer.display
        let xterm = try ZRCProcess(
            executable: URL(fileURLWithPath: "/usr/bin/xterm"),
            arguments: ["-ti", "vt340", "-xrm", "XTerm*numColorRegisters: 1024", "-xrm", "XTerm*maxGraphicSize: 4096x4096",
                        "-geometry", "110x40+0+0", "-e", "sh", "-c", rig.viewCommand([], files: files)],
            environment: environment)

        let seen = await Wait.until(.seconds(30)) { TestPattern.shown(on: viewer.display) }
        if seen == nil { try? XScreenshot(display: viewer.display).writePPM(to: "/tmp/zrc-xterm-failure.ppm") }
        let boxes = try #require(seen, "the pattern appears on the viewer's screen (screenshot: /tmp/zrc-xterm-failure.ppm): \(files.read(files.log)) \(xterm.stderr)")
        #expect(files.read(files.log).contains("renderer sixel"), "xterm (vt340) gets sixel automatically: \(files.read(files.log))")
        let image = try #require(boxes.union)
        let width = Double(image.maxX - image.minX + 2), height = Double(image.maxY - image.minY + 2)
        #expect(abs(width / height - 4.0 / 3.0) < 0.05, "the aspect ratio is kept: \(width)x\(height)")

        // Click where remote pixel (480, 360) is shown, in the yellow quadrant.
        let target = (x: 480, y: 360)
        let scaleX: Double = width / Double(TestPattern.width), scaleY: Double = height / Double(TestPattern.height)
        let localX = Int(Double(image.minX) + (Double(target.x) + 0.5) * scaleX)
        let localY = Int(Double(image.minY) + (Double(target.y) + 0.5) * scaleY)
        let local = (x: localX, y: localY)
        _ = rig.client.takeEvents()
        try await viewer.run("xdotool", ["mousemove", "\(local.x)", "\(local.y)", "click", "1"])
        var events: [TestXClient.Event] = []
        let press = await Wait.until(.seconds(15)) { () -> (Int, Int)? in
            events += rig.client.takeEvents()
            for case .buttonPress(1, let x, let y) in events { return (x, y) }
            return nil
        }
        let (x, y) = try #require(press, "the click reaches the host's X client: \(events)")
        // One remote pixel is about 0.9 viewer pixels here; the picture's edges are found by colour.
        #expect(abs(x - target.x) <= 3 && abs(y - target.y) <= 3, "pressed at \(x),\(y), expected \(target)")
        #expect(await Wait.until(.seconds(5)) { () -> Bool? in
            events += rig.client.takeEvents()
            return events.contains { if case .buttonRelease(1, _, _) = $0 { true } else { false } } ? true : nil
        } == true, "and released: \(events)")

        try await viewer.run("xdotool", ["key", "ctrl+bracketright", "q"])
        #expect(await files.exitStatus(within: .seconds(15)) == 0, "\(files.read(files.log))")
        await xterm.terminate()
        await rig.close()
    }
}
}
