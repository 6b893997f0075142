import PropertyBased
import Testing
import ZRCFrames
import ZRCViewer
import ZRCProtocol

@Suite struct CellBandsTests {
    static let area = TerminalArea(column: 0, row: 0, columns: 100, rows: 40, cellWidth: 10, cellHeight: 20)

    @Test(arguments: [(20, 3), (13, 6), (12, 1), (18, 1), (10, 3), (1, 6)])
    func granulesEndOnCellAndSixelBoundaries(cellHeight: Int, expected: Int) {
        let granule = CellBands.granule(cellHeight: cellHeight, band: 6)
        #expect(granule == expected)
        #expect(granule * cellHeight % 6 == 0)
    }

    @Test func aSmallChangeRedrawsItsRowsOnly() {
        #expect(CellBands.rows(covering: [PixelRect(x: 5, y: 45, width: 10, height: 10)], in: Self.area) == [2..<3])
        #expect(CellBands.rows(covering: [PixelRect(x: 5, y: 45, width: 10, height: 10)], in: Self.area, granule: 3) == [0..<3])
        #expect(CellBands.rows(covering: [PixelRect(x: 0, y: 100, width: 1, height: 1), PixelRect(x: 0, y: 700, width: 1, height: 50)],
                               in: Self.area) == [5..<6, 35..<38])
        #expect(CellBands.rows(covering: [], in: Self.area).isEmpty)
        #expect(CellBands.rows(covering: nil, in: Self.area) == [0..<40])
        #expect(CellBands.rows(covering: [PixelRect(x: 0, y: 0, width: 10, height: 600)], in: Self.area) == [0..<40], "mostly changed: all")
    }

    /// Whatever changed, every changed pixel's row is redrawn, bands stay inside the area, start
    /// and end on granule boundaries (or the area's end) and do not overlap.
    @Test func bandsCoverEveryChangeOnBoundaries() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...799).array(of: 0...12), Gen.int(in: 1...6)) { values, granule in
            let rects = stride(from: 0, to: values.count - 1, by: 2).map { PixelRect(x: 0, y: values[$0], width: 1, height: 1 + values[$0 + 1] % 60) }
                .map { $0.intersection(PixelRect(x: 0, y: 0, width: 1000, height: 800)) }
            let bands = CellBands.rows(covering: rects, in: Self.area, granule: granule)
            for rect in rects where !rect.isEmpty {
                for y in [rect.y, rect.maxY - 1] { #expect(bands.contains { $0.contains(y / 20) }, "row of y=\(y) in \(bands)") }
            }
            for (index, band) in bands.enumerated() {
                #expect(band.lowerBound >= 0 && band.upperBound <= 40 && !band.isEmpty)
                #expect(band.lowerBound % granule == 0 && (band.upperBound % granule == 0 || band.upperBound == 40))
                if index > 0 { #expect(bands[index - 1].upperBound < band.lowerBound) }
            }
        }
    }
}
