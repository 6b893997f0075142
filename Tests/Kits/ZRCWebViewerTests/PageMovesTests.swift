import Foundation
import Testing
import ZRCFrames
import ZRCProtocol
import ZRCTestSupport
import ZRCWebTesting
import ZRCWebViewer
import ZRCWebViewerKit

/// The page repeats the host's moves on its own picture: frames built here from a compositor's
/// `ChangePlan` (scrolls, windows moved, strips drawn, several updates folded into one frame) are
/// encoded as zrc-ctl sends them, parsed by the page's `wire.js` and drawn by its `view.js` in
/// Chromium; the canvas must equal the compositor's newest picture pixel for pixel.
@Suite struct PageMovesTests {
    /// Applies solid, raw and copy rects only (what these frames hold).
    struct PlainDecoder: RegionDecoder {
        struct Unsupported: Error {}
        mutating func decodeJPEG(_ data: [UInt8], into image: inout PixelBuffer, rect: PixelRect) throws { throw Unsupported() }
        mutating func decompressLossless(_ chunk: [UInt8], maximumSize: Int) throws -> [UInt8] { throw Unsupported() }
        mutating func decompressLosslessFrame(_ frame: [UInt8], maximumSize: Int) throws -> [UInt8] { throw Unsupported() }
        mutating func restartLossless(_ chunk: [UInt8], maximumSize: Int) throws -> [UInt8] { throw Unsupported() }
    }

    static let width = 96, height = 72

    /// The page messages for a random run of updates, and the picture they must end in.
    static func frames(seed: UInt64) throws -> (messages: [String], newest: PixelBuffer, moves: Int) {
        var random = SplitMix64(seed: seed)
        func pick(_ limit: Int) -> Int { Int(random.next() % UInt64(max(1, limit))) }
        var compositor = FrameCompositor()
        var decoder = PlainDecoder()
        var frameID: UInt64 = 0
        func apply(_ rects: [FrameRect]) throws {
            frameID += 1
            try compositor.apply(FrameUpdate(frameID: frameID, captureMicros: 0, encodeDoneMicros: 0, sendMicros: 0,
                                             screenWidth: UInt32(width), screenHeight: UInt32(height), quality: 0, rects: rects),
                                 decoder: &decoder)
        }
        var noise: [UInt8] = []
        for _ in 0..<(width * height) { noise += [UInt8(pick(256)), UInt8(pick(256)), UInt8(pick(256)), 0] }
        try apply([FrameRect(x: 0, y: 0, width: UInt16(width), height: UInt16(height), content: .raw(bgrx: noise))])
        var messages: [String] = [], sent: UInt64 = 0, moves = 0, pageVersion: UInt32 = 0
        func send() {
            let plan = sent == 0 ? ChangePlan(repaint: [compositor.framebuffer.bounds]) : compositor.plan(since: sent)
            pageVersion += 1
            let frame = PageFrame(version: pageVersion, mapping: .identity(width: UInt32(width), height: UInt32(height)),
                                  pixels: compositor.framebuffer, moves: plan.moves, rects: plan.repaint)
            moves += frame.moves.count
            messages.append(Data(PageUpdate.frame(frame).encoded).base64EncodedString())
            sent = compositor.version
        }
        send()
        for _ in 0..<40 {
            var rects: [FrameRect] = []
            for _ in 0..<(1 + pick(3)) {
                let w = 1 + pick(width), h = 1 + pick(height)
                let x = pick(width - w + 1), y = pick(height - h + 1)
                if pick(3) > 0 {
                    // A scroll or a window moved: overlapping source and destination.
                    let sx = max(0, min(width - w, x + pick(17) - 8)), sy = max(0, min(height - h, y + pick(17) - 8))
                    rects.append(FrameRect(x: UInt16(x), y: UInt16(y), width: UInt16(w), height: UInt16(h), content: .copy(sourceX: UInt16(sx), sourceY: UInt16(sy))))
                } else {
                    var bytes: [UInt8] = []
                    for _ in 0..<(w * h) { bytes += [UInt8(pick(256)), UInt8(pick(256)), UInt8(pick(256)), 0] }
                    rects.append(FrameRect(x: UInt16(x), y: UInt16(y), width: UInt16(w), height: UInt16(h), content: .raw(bgrx: bytes)))
                }
            }
            try apply(rects)
            // Latest wins: some updates are folded into the next frame.
            if pick(3) > 0 { send() }
        }
        send()
        return (messages, compositor.framebuffer, moves)
    }

    @Test func theCanvasEqualsTheNewestPictureAfterRepeatingTheMoves() async throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("PageMovesTests seed \(seed)")
        let (messages, newest, moves) = try Self.frames(seed: seed)
        #expect(moves > 0, "seed \(seed): the frames hold moves")
        try await PageInBrowser.run { browser in
            let json = String(decoding: try JSONEncoder().encode(messages), as: UTF8.self)
            let answer = try await browser.call("eval", ["expression": """
                Promise.all([import('/wire.js'), import('/view.js')]).then(([wire, view]) => {
                  const canvas = document.createElement('canvas'), area = document.createElement('div');
                  area.append(canvas);
                  const screen = new view.ScreenView(area, canvas);
                  for (const message of \(json)) {
                    const bytes = Uint8Array.from(atob(message), (c) => c.charCodeAt(0));
                    screen.apply(wire.decodeUpdate(bytes.buffer));
                  }
                  return [screen.movesApplied, Array.from(canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data)];
                })
                """])
            let value = answer["value"] as? [Any] ?? []
            let applied = value.first as? Int ?? -1
            let rgba = value.dropFirst().first as? [Int] ?? []
            #expect(applied == moves, "seed \(seed): the page made every move")
            #expect(rgba.count == Self.width * Self.height * 4, "seed \(seed): the canvas has the picture's size")
            var differing = 0
            for y in 0..<Self.height {
                for x in 0..<Self.width where rgba.count == Self.width * Self.height * 4 {
                    let index = (y * Self.width + x) * 4
                    let rgb = UInt32(rgba[index]) << 16 | UInt32(rgba[index + 1]) << 8 | UInt32(rgba[index + 2])
                    if rgb != newest.pixel(x: x, y: y) & 0xFFFFFF { differing += 1 }
                }
            }
            #expect(differing == 0, "seed \(seed): \(differing) pixels of the canvas differ from the newest picture")
        }
    }
}
