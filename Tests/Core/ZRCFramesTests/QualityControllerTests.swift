import Testing
import ZRCFrames

@Suite struct QualityControllerTests {
    @Test func aSlowControllerGetsLowerQuality() {
        var control = QualityController(qualityRange: 35...80, start: 70, targetMicros: 33_000)
        for _ in 0..<20 { control.frameAcknowledged(afterMicros: 200_000) }
        #expect(control.quality == 35)
    }

    @Test func aFastControllerGetsBackToFullQuality() {
        var control = QualityController(qualityRange: 35...80, start: 40, targetMicros: 33_000)
        for _ in 0..<40 { control.frameAcknowledged(afterMicros: 2_000) }
        #expect(control.quality == 80)
    }

    @Test(arguments: [0, 1_000, 33_000, 10_000_000])
    func qualityAlwaysStaysInRange(elapsed: UInt64) {
        var control = QualityController()
        for _ in 0..<100 { control.frameAcknowledged(afterMicros: elapsed) }
        #expect(control.qualityRange.contains(control.quality))
    }
}
