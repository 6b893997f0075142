import Foundation
import Synchronization
import Testing
import ZRCCommandSupport
import ZRCControllerKit
import ZRCFrames
import ZRCHostKit
import ZRCProtocol
import ZRCTestSupport
import ZRCKitTesting

/// One lossless stream for a group of viewers (`sharedLosslessStream`), through a real host server
/// and controllers over loopback with the real zstd: viewers of scrolling text in step send the same
/// chunks, every picture stays exactly the host's (a viewer joining mid-stream starts from the
/// group's restart; one announcing only lossless frames gets those), and ten viewers' bytes per
/// viewer stay within 1.2× one viewer's.
@Suite struct SharedLosslessStreamTests {
    /// Lossless rects through the real zstd (`FrameCodec`); JPEG as raw pixels, so pictures compare exactly.
    final class ZstdRawCodec: RegionEncoder, RegionDecoder {
        let zstd: FrameCodec
        init() { zstd = try! FrameCodec() }
        func encodeJPEG(_ image: PixelBuffer, rect: PixelRect, quality: Int, fullChroma: Bool) throws -> [UInt8] { image.crop(rect) }
        func decodeJPEG(_ data: [UInt8], into image: inout PixelBuffer, rect: PixelRect) throws {
            guard data.count == rect.area * 4 else { throw FrameError("size mismatch") }
            image.blit(data, into: rect)
        }
        func compressLossless(_ payload: [UInt8]) throws -> [UInt8] { try zstd.compressLossless(payload) }
        func compressLosslessFrame(_ payload: [UInt8]) throws -> [UInt8] { try zstd.compressLosslessFrame(payload) }
        func decompressLossless(_ chunk: [UInt8], maximumSize: Int) throws -> [UInt8] { try zstd.decompressLossless(chunk, maximumSize: maximumSize) }
        func decompressLosslessFrame(_ frame: [UInt8], maximumSize: Int) throws -> [UInt8] {
            try zstd.decompressLosslessFrame(frame, maximumSize: maximumSize)
        }
        func restartLossless(_ chunk: [UInt8], maximumSize: Int) throws -> [UInt8] { try zstd.restartLossless(chunk, maximumSize: maximumSize) }
    }

    /// A terminal-like page: lines of dark "glyphs" on white, 10 pixels a line, `line` numbering them.
    static func drawLine(_ pixels: inout PixelBuffer, line: Int, atY y: Int) {
        var random = SplitMix64(seed: UInt64(line) &* 0x9E37_79B9 | 1)
        pixels.fill(PixelRect(x: 0, y: y, width: pixels.width, height: 10), rgb: 0xFFFFFF)
        var x = 2
        while x + 6 < pixels.width {
            let glyph = Int(random.next() % 40)
            if glyph < 32 {
                // Words of glyphs: a few strokes each, from a small alphabet (text repeats itself).
                let strokes = [(0, 1, 1, 7), (4, 1, 1, 7), (1, 1, 3, 1), (1, 4, 3, 1), (1, 7, 3, 1)]
                for (index, stroke) in strokes.enumerated() where glyph >> (index % 5) & 1 == 1 || index == glyph % 5 {
                    pixels.fill(PixelRect(x: x + stroke.0, y: y + 1 + stroke.1, width: stroke.2, height: stroke.3), rgb: 0x202020)
                }
            }
            x += 6
        }
    }

    static func page(width: Int, height: Int, firstLine: Int) -> PixelBuffer {
        var pixels = PixelBuffer(width: width, height: height)
        for row in 0..<height / 10 { drawLine(&pixels, line: firstLine + row, atY: row * 10) }
        return pixels
    }

    /// Scrolls the screen up by one line and writes the next one at the bottom.
    static func scroll(_ screen: FakeScreen, line: Int) {
        screen.draw { pixels in
            pixels.move(PixelRect(x: 0, y: 10, width: pixels.width, height: pixels.height - 10),
                        to: PixelRect(x: 0, y: 0, width: pixels.width, height: pixels.height - 10))
            drawLine(&pixels, line: line, atY: pixels.height - 10)
        }
    }

    final class Bytes: Sendable {
        let total = Mutex<(bytes: Int, updates: Int)>((0, 0))
        func add(_ measurement: UpdateMeasurement) { total.withLock { $0.bytes += measurement.wireBytes; $0.updates += 1 } }
        func take() -> (bytes: Int, updates: Int) { total.withLock { taken in defer { taken = (0, 0) }; return taken } }
    }

    struct Setup {
        let screen: FakeScreen
        let sharing: ScreenSharing
        let harness: HostHarness
        /// Controllers enough for ten sessions (a host allows one controller four).
        let controllers: [ZRCController]
        let bytes: Bytes
        var nextLine: Int

        init(oldController: Bool = false) async throws {
            let (width, height) = (320, 200)
            nextLine = height / 10
            screen = FakeScreen(width: width, height: height, numbersCaptures: true)
            let page = SharedLosslessStreamTests.page(width: width, height: height, firstLine: 0)
            screen.draw { $0 = page }
            let bytes = Bytes()
            self.bytes = bytes
            sharing = ScreenSharing(source: screen, input: screen, makeEncoder: { ZstdRawCodec() }, onUpdate: { bytes.add($0) })
            harness = try HostHarness(sharing: sharing)
            _ = try await harness.start()
            var controllers: [ZRCController] = []
            for index in 0..<3 {
                controllers.append(harness.controller(name: "viewer-\(index)", makeDecoder: { ZstdRawCodec() }).0)
                _ = try await harness.pair(controllers[index], name: "desk")
            }
            self.controllers = controllers
        }

        /// Session `index` of several (each controller holds four at most).
        func connect(_ index: Int) async throws -> ControllerSession { try await controllers[index / 4].connect(to: "desk") }

        /// Scrolls `lines` lines, one per step, each once every session shows the screen; nil, or
        /// which sessions differ.
        mutating func scroll(_ lines: Int, sessions: [ControllerSession]) async -> String? {
            for step in 0..<lines {
                SharedLosslessStreamTests.scroll(screen, line: nextLine)
                nextLine += 1
                for (index, session) in sessions.enumerated() where await !SessionWaits.shows(session, screen.pixels, within: .seconds(20)) {
                    return "step \(step): viewer \(index) differs from the screen"
                }
            }
            return nil
        }
    }

    /// Bytes per viewer while text scrolls: one viewer, then ten in step (after the group formed);
    /// ten cost each at most 1.2× what one does (lossless frames of their own cost several times
    /// as much), and every picture stays exact throughout.
    @Test func tenViewersScrollingCostWhatOneDoes() async throws {
        var setup = try await Setup()
        try await setup.harness.stoppingAfter {
            var sessions = [try await setup.connect(0)]
            #expect(await SessionWaits.shows(sessions[0], setup.screen.pixels))
            _ = await setup.scroll(4, sessions: sessions)
            _ = setup.bytes.take()
            let alone = await setup.scroll(30, sessions: sessions)
            #expect(alone == nil, "\(alone ?? "")")
            let one = setup.bytes.take()
            for index in 1..<10 { sessions.append(try await setup.connect(index)) }
            for session in sessions { #expect(await SessionWaits.shows(session, setup.screen.pixels)) }
            // The group forms (a restart for all), then is measured in step.
            let forming = await setup.scroll(4, sessions: sessions)
            #expect(forming == nil, "\(forming ?? "")")
            _ = setup.bytes.take()
            let together = await setup.scroll(30, sessions: sessions)
            #expect(together == nil, "\(together ?? "")")
            let ten = setup.bytes.take()
            let (perViewerOne, perViewerTen) = (Double(one.bytes), Double(ten.bytes) / 10)
            #expect(perViewerTen <= 1.2 * perViewerOne,
                    "one viewer: \(one.bytes) B in \(one.updates) updates; ten: \(ten.bytes) B in \(ten.updates) updates (\(perViewerTen) B each)")
            #expect(setup.sharing.updates.counts.used > 0, "viewers in step send updates another session made")
            for session in sessions { await session.close() }
        }
    }

    /// Text scrolling on its own, 30 lines a second, while ten viewers watch: sessions fall in and
    /// out of step (taking updates as they are, with chunks of their own streams, or after a
    /// restart), and every picture ends exactly the host's.
    @Test func tenViewersOfTextScrollingOnItsOwnStayExact() async throws {
        var setup = try await Setup()
        try await setup.harness.stoppingAfter {
            var sessions: [ControllerSession] = []
            for index in 0..<10 { sessions.append(try await setup.connect(index)) }
            for session in sessions { #expect(await SessionWaits.shows(session, setup.screen.pixels)) }
            for _ in 0..<60 {
                SharedLosslessStreamTests.scroll(setup.screen, line: setup.nextLine)
                setup.nextLine += 1
                try await Task.sleep(for: .milliseconds(33))  // the scenario's pace: 30 lines/s, nothing awaited
            }
            for (index, session) in sessions.enumerated() {
                #expect(await SessionWaits.shows(session, setup.screen.pixels), "viewer \(index) differs from the screen")
            }
            #expect(setup.sharing.updates.counts.used > 0)
            for session in sessions { await session.close() }
        }
    }

    /// Viewers joining one by one while text scrolls (each joins a group mid-stream, so the
    /// group's stream restarts for it), one that announced only lossless frames among them, and
    /// viewers leaving: every picture stays exactly the host's.
    @Test func viewersJoiningAndLeavingMidStreamStayExact() async throws {
        var setup = try await Setup()
        try await setup.harness.stoppingAfter {
            let (old, _) = setup.harness.controller(name: "old", makeDecoder: { ZstdRawCodec() },
                                                    capabilities: [.jpegRects, .solidRects, .rawRects, .losslessRects, .copyRects, .losslessFrames,
                                                                   .compactFrames])
            _ = try await setup.harness.pair(old, name: "desk")
            var sessions: [ControllerSession] = []
            for round in 0..<5 {
                sessions.append(try await (round == 2 ? old.connect(to: "desk") : setup.connect(round)))
                let shown = await setup.scroll(6, sessions: sessions)
                #expect(shown == nil, "round \(round): \(shown ?? "")")
            }
            // Viewers taking a shared stream were restarted once their group's streams were too
            // many (the third viewer of them joining); the old one never was.
            var restarted = 0
            for (index, session) in sessions.enumerated() {
                let received = await session.encodingsReceived
                if received.contains(.sharedLosslessStream) { restarted += 1 }
                #expect(index != 2 || !received.contains(.sharedLosslessStream), "viewer \(index): \(received)")
                #expect(received.contains(.losslessFrames) == (index == 2), "viewer \(index): \(received)")
            }
            #expect(restarted >= 3, "the viewers taking a shared stream were brought into one")
            await sessions.removeFirst().close()
            await sessions.removeLast().close()
            let after = await setup.scroll(6, sessions: sessions)
            #expect(after == nil, "after two left: \(after ?? "")")
            #expect(setup.sharing.updates.counts.used > 0)
            for session in sessions { await session.close() }
        }
    }
}
