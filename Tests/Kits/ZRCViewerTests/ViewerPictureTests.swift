import PropertyBased
import Testing
import ZRCFrames
import ZRCProtocol
import ZRCTestSupport
import ZRCViewer

@Suite struct ViewerPictureTests {
    static let arrow = CursorShape(shapeID: 1, width: 4, height: 4, hotX: 1, hotY: 1,
                                   rgba: (0..<16).flatMap { $0 % 3 == 0 ? [0, 0, 0, 0] : [255, 255, 255, UInt8($0 * 16)] })

    static func pointer(_ x: Int32, _ y: Int32) -> ViewerPicture.Pointer { .init(shape: arrow, x: x, y: y) }

    @Test func nothingToShowBeforeTheFirstFrame() {
        var picture = ViewerPicture()
        let viewport = Viewport(remoteWidth: 10, remoteHeight: 10, areaWidth: 10, areaHeight: 10)
        #expect(picture.update(frame: nil, changedRemote: [], pointer: nil, viewport: viewport, full: true) == [])
        #expect(picture.image == nil)
    }

    @Test func afterTheFirstFrameOnlyChangesAndThePointerAreRedrawn() {
        var picture = ViewerPicture()
        let viewport = Viewport(remoteWidth: 64, remoteHeight: 64, areaWidth: 64, areaHeight: 64)
        var frame = FrameScalerTests.noise(width: 64, height: 64, seed: 3)
        #expect(picture.update(frame: frame, changedRemote: [frame.bounds], pointer: Self.pointer(10, 10), viewport: viewport,
                               full: false) == nil, "the first picture is drawn whole")
        #expect(picture.update(frame: frame, changedRemote: [], pointer: Self.pointer(10, 10), viewport: viewport, full: false) == [],
                "nothing changed, nothing to draw")
        let moved = picture.update(frame: frame, changedRemote: [], pointer: Self.pointer(30, 40), viewport: viewport, full: false) ?? []
        #expect(moved.contains { $0.contains(x: 9, y: 9) } && moved.contains { $0.contains(x: 29, y: 39) }, "\(moved)")
        frame.fill(PixelRect(x: 50, y: 5, width: 4, height: 4), rgb: 0xFF0000)
        let changed = picture.update(frame: frame, changedRemote: [PixelRect(x: 50, y: 5, width: 4, height: 4)],
                                     pointer: Self.pointer(30, 40), viewport: viewport, full: false) ?? []
        #expect(changed.contains { $0.contains(x: 51, y: 6) })
        #expect(picture.image?.pixel(x: 51, y: 6) == 0xFF0000)
    }

    /// Whatever sequence of frames and pointer moves, the picture updated piece by piece equals the
    /// picture drawn from scratch: no pointer trails, no stale tiles.
    @Test func piecewiseUpdatesEqualAFreshPicture() async {
        await propertyCheck(count: 150, input: FrameScalerTests.viewports, Gen.uint64(), Gen.int(in: 0...10_000).array(of: 12)) { viewport, seed, steps in
            var frame = FrameScalerTests.noise(width: viewport.remoteWidth, height: viewport.remoteHeight, seed: seed)
            var picture = ViewerPicture()
            _ = picture.update(frame: frame, changedRemote: [], pointer: nil, viewport: viewport, full: true)
            var pointer: ViewerPicture.Pointer?
            for step in stride(from: 0, to: steps.count, by: 3) {
                let x = steps[step] % viewport.remoteWidth, y = steps[step + 1] % viewport.remoteHeight
                if steps[step + 2] % 2 == 0 {
                    let change = PixelRect(x: x, y: y, width: 1 + steps[step + 2] % (viewport.remoteWidth - x), height: 1)
                    frame.fill(change, rgb: UInt32(steps[step + 2]))
                    _ = picture.update(frame: frame, changedRemote: [change], pointer: pointer, viewport: viewport, full: false)
                } else {
                    pointer = Self.pointer(Int32(x), Int32(y))
                    _ = picture.update(frame: frame, changedRemote: [], pointer: pointer, viewport: viewport, full: false)
                }
            }
            var fresh = ViewerPicture()
            _ = fresh.update(frame: frame, changedRemote: [], pointer: pointer, viewport: viewport, full: true)
            #expect(picture.image == fresh.image)
        }
    }
}
