import Foundation
import Testing
import ZRCXTestSupport

/// `zrc-ctl view` in kitty (software OpenGL on an X display of its own): the kitty graphics
/// protocol through shared memory, and a change on the host arriving as an in-place edit.
extension ViewerInRealTerminals {
@Suite struct ViewerInKittyTests {
    @Test func kittyShowsThePatternThroughSharedMemoryAndFollowsAChange() async throws {
        let rig = try await ViewerRig()
        let viewer = try await PrivateXServer.start(["-screen", "0", "1024x768x24"])
        let files = rig.files("kitty")
        var environment = try rig.env.environment(for: "controller")
        environment["DISPLAY"] = viewer.display
        // Xvfb has no GPU: Mesa's software renderer gives kitty the OpenGL it needs.
        environment["LIBGL_ALWAYS_SOFTWARE"] = "1"
        // One rendering thread: the software renderer would otherwise take every core.
        environment["LP_NUM_THREADS"] = "1"
        let kitty = try ZRCProcess(
            executable: URL(fileURLWithPath: "/usr/bin/kitty"),
            arguments: ["--config", "NONE", "-o", "initial_window_width=900", "-o", "initial_window_height=700",
                        // Kitty answers late on a loaded machine (software OpenGL): the shared-memory
                        // proof is one of its answers, so the probe waits for them.
                        "sh", "-c", rig.viewCommand(["--probe-timeout", "15s"], files: files)],
            environment: environment)

        let seen = await Wait.until(.seconds(40)) { TestPattern.shown(on: viewer.display) }
        if seen == nil { try? XScreenshot(display: viewer.display).writePPM(to: "/tmp/zrc-kitty-failure.ppm") }
        _ = try #require(seen, "the pattern appears in kitty (screenshot: /tmp/zrc-kitty-failure.ppm): \(files.read(files.log)) \(kitty.stderr)")
        let log = files.read(files.log)
        #expect(log.contains("renderer kitty (shm)") && log.contains("terminal kitty("), "kitty is found and reads shared memory: \(log)")

        // A change on the host: after the first image, kitty receives only edits of the changed area.
        let cyan: UInt32 = 0x00FFFF
        rig.client.fill(x: 0, y: 0, width: TestPattern.width / 2, height: TestPattern.height / 2, pixel: cyan)
        let changed = [cyan, TestPattern.topRight, TestPattern.bottomLeft, TestPattern.bottomRight]
        let updated = await Wait.until(.seconds(20)) { TestPattern.shown(on: viewer.display, colours: changed) }
        #expect(updated != nil, "the change appears: \(files.read(files.log))")

        try await viewer.run("xdotool", ["mousemove", "400", "300", "key", "ctrl+bracketright", "q"])
        #expect(await files.exitStatus(within: .seconds(15)) == 0, "\(files.read(files.log))")
        await kitty.terminate()
        await rig.close()
    }
}
}
