import Foundation
import Testing
import ZRCControllerKit
import ZRCX11
import ZRCXTestSupport

/// Sessions once dropped under full-screen motion ("nothing received for 20 s" after 3–4 s): the
/// keepalive read its clock before an acknowledgement was stamped, and the difference wrapped.
/// A minute of full-screen motion (on whatever load the rest of the suite puts on the machine)
/// must end no session.
@Suite struct X11MotionSoakTests {
    @Test func aMinuteOfFullScreenMotionDropsNoSession() async throws {
        let setup = try await X11SessionTests.Setup()
        let painter = try X11SessionTests.painter(on: setup.server)
        let session = try await setup.controller.connect(to: "desk")
        let clock = ContinuousClock()
        let end = clock.now + .seconds(60)
        var step = 0
        var lastVersion: UInt64 = 0
        var framesSeen = 0
        while clock.now < end {
            step += 1
            try X11SessionTests.show(painter, offset: step * 7 % X11SessionTests.width)
            if let frame = await session.pollFrame(newerThan: lastVersion) {
                lastVersion = frame.version
                framesSeen += 1
            }
            try await Task.sleep(for: .milliseconds(8))
            if await session.end != nil { break }
        }
        let ended = await session.end
        #expect(ended == nil, "the session ended during motion: \(String(describing: ended))")
        #expect(framesSeen > 60, "frames kept arriving: \(framesSeen) in \(step) steps")
        _ = try await session.ping(timeout: .seconds(20))
        await session.close()
        await setup.stop()
    }
}
