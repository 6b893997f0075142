import PropertyBased
import Testing
import ZRCFrames
import ZRCProtocol
import ZRCTestSupport

/// A viewer that keeps its own picture catches up by repeating moves and painting the rest
/// (`ChangePlan`): whatever updates were folded together, the result is the newest picture.
@Suite struct ChangePlanTests {
    @Test func replayingThePlanOnAnyOlderPictureGivesTheNewest() async {
        await propertyCheck(count: 300, input: Gen.int(in: 8...60), Gen.int(in: 8...50), Gen.int(in: 1...12), Gen.int(in: 0...Int(UInt32.max))) {
            width, height, updates, seed in
            var random = Xorshift(seed: UInt64(seed) | 1)
            func pick(_ limit: Int) -> Int { Int(random.next() % UInt64(max(1, limit))) }
            func area() -> PixelRect {
                let w = 1 + pick(width), h = 1 + pick(height)
                return PixelRect(x: pick(width - w + 1), y: pick(height - h + 1), width: w, height: h)
            }
            var compositor = FrameCompositor()
            var codec = RawRegionCodec()
            var pictures: [UInt64: PixelBuffer] = [:]
            // The first update paints the whole screen with noise, so a wrong move shows.
            var noise: [UInt8] = []
            for _ in 0..<(width * height) { noise += [UInt8(pick(256)), UInt8(pick(256)), UInt8(pick(256)), 0] }
            let first = FrameRect(x: 0, y: 0, width: UInt16(width), height: UInt16(height), content: .raw(bgrx: noise))
            var frameID: UInt64 = 1
            func apply(_ rects: [FrameRect]) throws {
                let update = FrameUpdate(frameID: frameID, captureMicros: 0, encodeDoneMicros: 0, sendMicros: 0,
                                         screenWidth: UInt32(width), screenHeight: UInt32(height), quality: 0, rects: rects)
                frameID += 1
                try compositor.apply(update, decoder: &codec)
                pictures[compositor.version] = compositor.framebuffer
            }
            try apply([first])
            for _ in 0..<updates {
                var rects: [FrameRect] = []
                for _ in 0..<(1 + pick(4)) {
                    let target = area()
                    if pick(2) == 0 {
                        let source = (x: pick(width - target.width + 1), y: pick(height - target.height + 1))
                        rects.append(FrameRect(x: UInt16(target.x), y: UInt16(target.y), width: UInt16(target.width), height: UInt16(target.height),
                                               content: .copy(sourceX: UInt16(source.x), sourceY: UInt16(source.y))))
                    } else {
                        rects.append(FrameRect(x: UInt16(target.x), y: UInt16(target.y), width: UInt16(target.width), height: UInt16(target.height),
                                               content: .solid(pixel: UInt32(pick(0xFFFFFF)))))
                    }
                }
                try apply(rects)
            }
            let newest = compositor.framebuffer
            for (version, old) in pictures {
                let plan = compositor.plan(since: version)
                var picture = old
                for move in plan.moves { picture.move(move.source, to: move.destination) }
                for rect in plan.repaint { picture.copy(rect, from: newest) }
                #expect(picture == newest, "seed \(seed): from version \(version) of \(compositor.version), plan \(plan)")
            }
            #expect(compositor.plan(since: compositor.version) == ChangePlan())
        }
    }

    @Test func aMoveReadingWhatAnEarlierUpdateDrewIsPaintedInstead() {
        let drawn = PixelRect(x: 0, y: 0, width: 10, height: 10)
        let plan = ChangePlan([.moved(from: PixelRect(x: 0, y: 20, width: 10, height: 10), to: PixelRect(x: 0, y: 30, width: 10, height: 10)),
                               .drawn(drawn),
                               .moved(from: PixelRect(x: 5, y: 5, width: 10, height: 10), to: PixelRect(x: 40, y: 40, width: 10, height: 10)),
                               .moved(from: PixelRect(x: 40, y: 40, width: 4, height: 4), to: PixelRect(x: 60, y: 60, width: 4, height: 4))])
        #expect(plan.moves == [PixelMove(source: PixelRect(x: 0, y: 20, width: 10, height: 10), destination: PixelRect(x: 0, y: 30, width: 10, height: 10))])
        #expect(plan.repaint == [drawn, PixelRect(x: 40, y: 40, width: 10, height: 10), PixelRect(x: 60, y: 60, width: 4, height: 4)])
    }
}
