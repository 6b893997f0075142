import Foundation
import Testing
import ZRCTestSupport
import ZRCViewer
import ZRCWebTesting
import ZRCWebViewerKit

/// The page maps a pointer to a remote pixel itself, with no round trip; it must follow the Swift
/// viewport's rule. One table of cases, generated here from `Viewport` (fit with letterbox bars,
/// and zoomed and panned), runs through the page's own `remotePixel` in Chromium.
@Suite struct MappingTableTests {
    struct Case: Codable {
        var rect: [String: Double]
        var screen: [String: Int]
        var x: Double
        var y: Double
        var expected: [Int]?
    }

    static func table(seed: UInt64) -> [Case] {
        var random = SplitMix64(seed: seed)
        var cases: [Case] = []
        for _ in 0..<500 {
            let remote = (width: 160 + Int(random.next() % 3000), height: 120 + Int(random.next() % 2000))
            let area = (width: 50 + Int(random.next() % 2500), height: 50 + Int(random.next() % 1600))
            var viewport = Viewport(remoteWidth: remote.width, remoteHeight: remote.height, areaWidth: area.width, areaHeight: area.height)
            if random.next() % 2 == 0 {
                viewport.zoom(by: 1 + Double(random.next() % 1000) / 100, keepingLocal: random.unit() * Double(area.width), random.unit() * Double(area.height))
            }
            let image = viewport.imageRect
            // The page's canvas: the whole screen at the viewport's scale, placed so the visible
            // region sits where the viewport draws it.
            let rect = ["left": image.x - viewport.originX * viewport.scale, "top": image.y - viewport.originY * viewport.scale,
                        "width": Double(remote.width) * viewport.scale, "height": Double(remote.height) * viewport.scale]
            // Points in the image (where the page's canvas is visible) and in the bars.
            let x = image.x + (random.unit() * 1.2 - 0.1) * image.width, y = image.y + (random.unit() * 1.2 - 0.1) * image.height
            guard x >= 0, y >= 0, x < Double(area.width), y < Double(area.height) else { continue }
            let inside = x >= image.x && x < image.x + image.width && y >= image.y && y < image.y + image.height
            guard inside || viewport.zoom == 1 else { continue }  // zoomed, the canvas continues beyond the image: clipped away
            let expected = viewport.remotePixel(x: x, y: y).map { [$0.x, $0.y] }
            cases.append(Case(rect: rect, screen: ["width": remote.width, "height": remote.height], x: x, y: y, expected: expected))
        }
        return cases
    }

    @Test func thePageMapsPointsAsTheSwiftViewportDoes() async throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("MappingTableTests seed \(seed)")
        let cases = Self.table(seed: seed)
        try await PageInBrowser.run { browser in
            let json = String(decoding: try JSONEncoder().encode(cases), as: UTF8.self)
            let answer = try await browser.call("eval", ["expression": """
                import('/view.js').then((m) => \(json).map((c) => { const p = m.remotePixel(c.rect, c.screen, c.x, c.y); return p ? [p.x, p.y] : null; }))
                """])
            let results = answer["value"] as? [Any] ?? []
            #expect(results.count == cases.count)
            var mismatches: [String] = []
            for (index, testCase) in cases.enumerated() where index < results.count {
                let got = (results[index] as? [Int])
                if got != testCase.expected { mismatches.append("\(testCase.x),\(testCase.y) in \(testCase.rect): page \(String(describing: got)), Swift \(String(describing: testCase.expected))") }
            }
            #expect(mismatches.isEmpty, "seed \(seed): \(mismatches.count) of \(cases.count) differ, e.g. \(mismatches.prefix(3))")
        }
    }
}

extension SplitMix64 {
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
