import Testing
import ZRCFrames
import ZRCProtocol

@Suite struct DamageLedgerTests {
    let first = ScreenViewer(id: 1), second = ScreenViewer(id: 2)

    @Test func aNewViewerKnowsNothingAndThenOnlyWhatChangedSinceItLooked() {
        var ledger = DamageLedger()
        #expect(ledger.hasDamage(for: first), "an unknown viewer has everything to look at")
        #expect(ledger.take(for: first) == nil, "nil: compare the whole screen")
        #expect(!ledger.hasDamage(for: first))
        ledger.record([PixelRect(x: 1, y: 2, width: 3, height: 4)])
        #expect(ledger.hasDamage(for: first))
        #expect(ledger.take(for: first) == [PixelRect(x: 1, y: 2, width: 3, height: 4)])
        #expect(ledger.take(for: first) == [])
    }

    @Test func oneViewerLookingDoesNotHideTheChangeFromAnother() {
        var ledger = DamageLedger()
        _ = ledger.take(for: first)
        _ = ledger.take(for: second)
        let change = PixelRect(x: 10, y: 10, width: 5, height: 5)
        ledger.record([change])
        #expect(ledger.take(for: first) == [change])
        #expect(ledger.hasDamage(for: second))
        #expect(ledger.take(for: second) == [change])
    }

    @Test func emptyRectanglesAreNotDamage() {
        var ledger = DamageLedger()
        _ = ledger.take(for: first)
        ledger.record([PixelRect(x: 3, y: 3, width: 0, height: 9)])
        #expect(!ledger.hasDamage(for: first))
    }

    @Test func manyRectanglesCollapseIntoTheirBoundingBox() {
        var ledger = DamageLedger(maximumRects: 4)
        _ = ledger.take(for: first)
        for index in 0..<5 { ledger.record([PixelRect(x: index * 10, y: index, width: 2, height: 2)]) }
        #expect(ledger.take(for: first) == [PixelRect(x: 0, y: 0, width: 42, height: 6)])
    }

    @Test func aViewerThatLeftOrAScreenChangeStartsOver() {
        var ledger = DamageLedger()
        _ = ledger.take(for: first)
        _ = ledger.take(for: second)
        ledger.remove(first)
        #expect(ledger.take(for: first) == nil)
        ledger.forgetAll()
        #expect(ledger.take(for: second) == nil)
    }

    /// A viewer whose picture was brought up to a generation without capturing drops what that
    /// capture shows, and keeps what came after and what carries no generation.
    @Test func skippingDropsOnlyWhatTheGenerationShows() {
        let viewer = ScreenViewer(id: 1)
        var ledger = DamageLedger()
        _ = ledger.take(for: viewer)
        let (early, late, unknown) = (PixelRect(x: 0, y: 0, width: 4, height: 4), PixelRect(x: 8, y: 8, width: 4, height: 4),
                                      PixelRect(x: 16, y: 0, width: 2, height: 2))
        ledger.record([early], generation: 5)
        ledger.record([unknown])
        ledger.record([late], generation: 6)
        ledger.skip(for: viewer, through: 5)
        #expect(ledger.take(for: viewer) == [unknown, late])
        ledger.skip(for: ScreenViewer(id: 9), through: 99)  // an unknown viewer: nothing happens
        #expect(ledger.take(for: ScreenViewer(id: 9)) == nil)
    }

    @Test func aCollapsedListKeepsItsNewestGeneration() {
        let viewer = ScreenViewer(id: 1)
        var ledger = DamageLedger(maximumRects: 2)
        _ = ledger.take(for: viewer)
        for generation in UInt64(1)...3 { ledger.record([PixelRect(x: Int(generation), y: 0, width: 1, height: 1)], generation: generation) }
        ledger.skip(for: viewer, through: 2)
        #expect(ledger.take(for: viewer) == [PixelRect(x: 1, y: 0, width: 3, height: 1)], "generation 3 is in it: kept whole")
    }
}

@Suite struct PixelBufferCopyTests {
    @Test(arguments: [PixelRect(x: 0, y: 0, width: 64, height: 40), PixelRect(x: 13, y: 7, width: 1, height: 1),
                      PixelRect(x: 60, y: 0, width: 4, height: 40), PixelRect(x: 5, y: 5, width: 0, height: 3)])
    func copyMovesExactlyThatRectangle(_ rect: PixelRect) {
        let source = ChangeDetectionTests.pattern(width: 64, height: 40)
        var target = PixelBuffer(width: 64, height: 40)
        target.copy(rect, from: source)
        var wrong: [String] = []
        for y in 0..<40 {
            for x in 0..<64 where target.pixel(x: x, y: y) != (rect.contains(x: x, y: y) ? source.pixel(x: x, y: y) : 0) {
                wrong.append("\(x),\(y)")
            }
        }
        #expect(wrong.isEmpty, "wrong pixels: \(wrong.prefix(10))")
    }
}
