import Foundation
import Testing
import ZRCXTestSupport

/// `zrc-ctl view` in xterm with sixel graphics, on an X display of its own: what a person would
/// see on that screen, and a real mouse click on the xterm window arriving on the host.
extension ViewerInRealTerminals {
@Suite struct ViewerInXtermTests {
    /// An X display of the viewer's own with `zrc-ctl view` in xterm (vt340: sixel graphics).
    static func sixelXterm(_ rig: ViewerRig, name: String) async throws -> (PrivateXServer, ViewerFiles, ZRCProcess) {
        let viewer = try await PrivateXServer.start(["-screen", "0", "1024x768x24"])
        let files = rig.files(name)
        var environment = try rig.env.environment(for: "controller")
        environment["DISPLAY"] = viewer.display
        let xterm = try ZRCProcess(
            executable: URL(fileURLWithPath: "/usr/bin/xterm"),
            arguments: ["-ti", "vt340", "-xrm", "XTerm*numColorRegisters: 1024", "-xrm", "XTerm*maxGraphicSize: 4096x4096",
                        "-geometry", "110x40+0+0", "-e", "sh", "-c", rig.viewCommand([], files: files)],
            environment: environment)
        return (viewer, files, xterm)
    }

    @Test func sixelShowsThePatternAndAClickLandsOnTheMappedRemotePixel() async throws {
        let rig = try await ViewerRig()
        let (viewer, files, xterm) = try await Self.sixelXterm(rig, name: "xterm")

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

    /// Ctrl+] m: with two RandR monitors on the host, the viewer shows one at a time (the host
    /// sends that part alone, so only its two quadrants are on the viewer's screen), clicks land on
    /// it, and after the last monitor comes the whole screen again.
    @Test func ctrlBracketMShowsOneMonitorAtATimeAndClicksLandOnIt() async throws {
        let rig = try await ViewerRig()
        let (viewer, files, xterm) = try await Self.sixelXterm(rig, name: "xterm-monitors")
        _ = try #require(await Wait.until(.seconds(30)) { TestPattern.shown(on: viewer.display) },
                         "the pattern appears: \(files.read(files.log)) \(xterm.stderr)")
        let half = TestPattern.width / 2
        try await rig.display.run("xrandr", ["--setmonitor", "LEFT", "\(half)/100x\(TestPattern.height)/100+0+0", "screen"])
        try await rig.display.run("xrandr", ["--setmonitor", "RIGHT", "\(half)/100x\(TestPattern.height)/100+\(half)+0", "none"])

        // The layout reaches the viewer within a second or so; a press before it only says
        // "the host has one monitor", so press until one monitor is shown.
        var shown: OneMonitor?
        for _ in 0..<10 where shown == nil {
            try await viewer.run("xdotool", ["key", "ctrl+bracketright", "m"])
            shown = await Wait.until(.seconds(5)) { OneMonitor.shown(on: viewer.display) }
        }
        let monitor = try #require(shown, "one monitor's two quadrants alone are shown: \(files.read(files.log))")
        let range = monitor.isLeft ? 0..<half : half..<TestPattern.width
        _ = rig.client.takeEvents()
        try await viewer.run("xdotool", ["mousemove", "\(monitor.bottomCentre.x)", "\(monitor.bottomCentre.y)", "click", "1"])
        var events: [TestXClient.Event] = []
        let press = await Wait.until(.seconds(15)) { () -> (Int, Int)? in
            events += rig.client.takeEvents()
            for case .buttonPress(1, let x, let y) in events { return (x, y) }
            return nil
        }
        let (x, y) = try #require(press, "the click reaches the host: \(events)")
        #expect(range.contains(x) && y >= TestPattern.height / 2, "pressed at \(x),\(y) on the \(monitor.isLeft ? "left" : "right") monitor")

        // The other monitor, then all of the screen.
        try await viewer.run("xdotool", ["key", "ctrl+bracketright", "m"])
        let other = await Wait.until(.seconds(15)) { OneMonitor.shown(on: viewer.display).flatMap { $0.isLeft != monitor.isLeft ? $0 : nil } }
        #expect(other != nil, "the next press shows the other monitor")
        try await viewer.run("xdotool", ["key", "ctrl+bracketright", "m"])
        #expect(await Wait.until(.seconds(15)) { TestPattern.shown(on: viewer.display) } != nil, "and then the whole screen")

        try await viewer.run("xdotool", ["key", "ctrl+bracketright", "q"])
        #expect(await files.exitStatus(within: .seconds(15)) == 0, "\(files.read(files.log))")
        await xterm.terminate()
        await rig.close()
    }
}
}

/// One half of the test pattern (a monitor) alone on the viewer's screen.
struct OneMonitor {
    let isLeft: Bool
    let bottomCentre: (x: Int, y: Int)

    static func shown(on display: String) -> OneMonitor? {
        guard let shot = try? XScreenshot(display: display) else { return nil }
        var boxes = TestPattern.Boxes()
        var counts: [UInt32: Int] = [:]
        for y in stride(from: 0, to: shot.height, by: 2) {
            for x in stride(from: 0, to: shot.width, by: 2) {
                let pixel = shot.pixel(x: x, y: y)
                if let colour = TestPattern.colours.first(where: { TestPattern.close(pixel, $0, tolerance: 40) }) {
                    boxes.add(colour, x: x, y: y)
                    counts[colour, default: 0] += 1
                }
            }
        }
        // A few blended samples along an edge are not a quadrant.
        func present(_ colour: UInt32) -> Bool { counts[colour, default: 0] > 200 }
        let left = present(TestPattern.topLeft) && present(TestPattern.bottomLeft)
        let right = present(TestPattern.topRight) && present(TestPattern.bottomRight)
        guard left != right else { return nil }
        let (top, bottom) = left ? (TestPattern.topLeft, TestPattern.bottomLeft) : (TestPattern.topRight, TestPattern.bottomRight)
        guard let upper = boxes.boxes[top], let lower = boxes.boxes[bottom], upper.maxY < lower.maxY else { return nil }
        return OneMonitor(isLeft: left, bottomCentre: ((lower.minX + lower.maxX) / 2, (lower.minY + lower.maxY) / 2))
    }
}
