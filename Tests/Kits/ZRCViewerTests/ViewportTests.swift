import PropertyBased
import Testing
import ZRCViewer

@Suite struct ViewportTests {
    /// Remote screens and terminal drawing areas, zooms and pans, as the viewer meets them.
    static let viewports = zip(Gen.int(in: 1...4096).array(of: 4), Gen.int(in: 0...40).array(of: 3)).map { sizes, steps in
        var viewport = Viewport(remoteWidth: sizes[0], remoteHeight: sizes[1], areaWidth: sizes[2], areaHeight: sizes[3])
        viewport.zoom(by: 1 + Double(steps[0]) / 4, keepingLocal: Double(sizes[2]) / 3, Double(sizes[3]) / 2)
        viewport.pan(byLocal: Double(steps[1] * 37 - 700), Double(steps[2] * 29 - 600))
        return viewport
    }

    static let unit = Gen.int(in: 0...10_000).map { Double($0) / 10_000 }

    @Test func everyMappedPointIsWithinOnePixelOfTheExactMappingAndOnTheScreen() async {
        await propertyCheck(count: 500, input: Self.viewports, Self.unit, Self.unit) { viewport, u, v in
            let image = viewport.imageRect
            let (x, y) = (image.x + u * image.width * 0.9999, image.y + v * image.height * 0.9999)
            let pixel = try #require(viewport.remotePixel(x: x, y: y), "a point on the image maps")
            let exact = viewport.exactRemote(x: x, y: y)
            #expect(abs(Double(pixel.x) - exact.x) <= 1 && abs(Double(pixel.y) - exact.y) <= 1, "\(pixel) vs \(exact)")
            #expect((0..<viewport.remoteWidth).contains(pixel.x) && (0..<viewport.remoteHeight).contains(pixel.y))
        }
    }

    @Test func theImageCornersMapToTheVisibleRegionsCorners() async {
        await propertyCheck(count: 300, input: Self.viewports) { viewport in
            let image = viewport.imageRect
            let topLeft = try #require(viewport.remotePixel(x: image.x, y: image.y))
            #expect(topLeft.x == Int(viewport.originX.rounded(.down)) && topLeft.y == Int(viewport.originY.rounded(.down)))
            let bottomRight = try #require(viewport.remotePixel(x: image.x + image.width - 1e-6, y: image.y + image.height - 1e-6))
            let lastX = min(viewport.remoteWidth - 1, Int((viewport.originX + viewport.visibleWidth).rounded(.up)) - 1)
            let lastY = min(viewport.remoteHeight - 1, Int((viewport.originY + viewport.visibleHeight).rounded(.up)) - 1)
            #expect(abs(bottomRight.x - lastX) <= 1 && abs(bottomRight.y - lastY) <= 1, "\(bottomRight) vs \(lastX),\(lastY)")
        }
    }

    @Test func theMappingIsMonotonic() async {
        await propertyCheck(count: 400, input: Self.viewports, Self.unit, Self.unit, Self.unit) { viewport, a, b, v in
            let image = viewport.imageRect
            let (low, high) = (min(a, b), max(a, b))
            let y = image.y + v * image.height * 0.9999
            let left = try #require(viewport.remotePixel(x: image.x + low * image.width * 0.9999, y: y))
            let right = try #require(viewport.remotePixel(x: image.x + high * image.width * 0.9999, y: y))
            #expect(left.x <= right.x && left.y == right.y)
        }
    }

    @Test func pointsInTheLetterboxMapToNothing() async {
        await propertyCheck(count: 300, input: Self.viewports, Self.unit) { viewport, u in
            let image = viewport.imageRect
            let outside: [(Double, Double)] = [(image.x - 0.5, image.y + u * image.height), (image.x + image.width + 0.01, image.y + u * image.height),
                                               (image.x + u * image.width, image.y - 0.5), (image.x + u * image.width, image.y + image.height)]
            for (x, y) in outside { #expect(viewport.remotePixel(x: x, y: y) == nil, "\(x),\(y) is letterbox") }
        }
    }

    @Test func zoomingKeepsThePointUnderThePointerWhereTheEdgesAllow() async {
        await propertyCheck(count: 400, input: Gen.int(in: 64...4096).array(of: 4), Self.unit, Self.unit, Gen.int(in: 1...30)) { sizes, u, v, step in
            var viewport = Viewport(remoteWidth: sizes[0], remoteHeight: sizes[1], areaWidth: sizes[2], areaHeight: sizes[3])
            let image = viewport.imageRect
            let (x, y) = (image.x + (0.25 + u / 2) * image.width, image.y + (0.25 + v / 2) * image.height)
            let before = viewport.exactRemote(x: x, y: y)
            viewport.zoom(by: 1 + Double(step) / 10, keepingLocal: x, y)
            let after = viewport.exactRemote(x: x, y: y)
            // Fixed unless the visible region had to be pushed back inside the screen.
            let clamped = viewport.originX == 0 || viewport.originY == 0
                || abs(viewport.originX - (Double(viewport.remoteWidth) - viewport.visibleWidth)) < 1e-9
                || abs(viewport.originY - (Double(viewport.remoteHeight) - viewport.visibleHeight)) < 1e-9
            if !clamped { #expect(abs(after.x - before.x) < 1e-6 && abs(after.y - before.y) < 1e-6) }
            // Zooming back out by the same factor returns to the whole screen's mapping.
            viewport.zoom(by: 1 / (1 + Double(step) / 10), keepingLocal: x, y)
            #expect(abs(viewport.zoom - 1) < 1e-9 && abs(viewport.originX) < 1e-6 && abs(viewport.originY) < 1e-6)
        }
    }

    @Test(arguments: [
        // remote, area, expected image rect (x, y, w, h)
        ((1920, 1080), (1600, 1200), (0.0, 150.0, 1600.0, 900.0)),
        ((1080, 1920), (1600, 900), (546.875, 0.0, 506.25, 900.0)),
        ((1, 1), (10, 20), (0.0, 5.0, 10.0, 10.0)),
    ])
    func theScreenIsFittedWithItsAspectRatio(remote: (Int, Int), area: (Int, Int), expected: (Double, Double, Double, Double)) {
        let viewport = Viewport(remoteWidth: remote.0, remoteHeight: remote.1, areaWidth: area.0, areaHeight: area.1)
        let image = viewport.imageRect
        #expect(image.x == expected.0 && image.y == expected.1 && image.width == expected.2 && image.height == expected.3)
    }

    @Test func panningStopsAtTheScreensEdgesAndResetShowsEverything() {
        var viewport = Viewport(remoteWidth: 1000, remoteHeight: 500, areaWidth: 1000, areaHeight: 500)
        viewport.zoom(by: 4, keepingLocal: 500, 250)
        viewport.pan(byLocal: -1e9, -1e9)
        #expect(viewport.originX == 0 && viewport.originY == 0)
        viewport.pan(byLocal: 1e9, 1e9)
        #expect(viewport.originX == 750 && viewport.originY == 375)
        #expect(viewport.remotePixel(x: 999.9, y: 499.9).map { [$0.x, $0.y] } == [999, 499])
        viewport.pan(byLocal: .nan, 3)
        #expect(viewport.originX == 750)
        viewport.reset()
        #expect(viewport.remotePixel(x: 0, y: 0).map { [$0.x, $0.y] } == [0, 0])
    }
}

@Suite struct ReconnectBackoffTests {
    @Test func twoFourEightThenEveryTenStartingOverAfterASession() {
        var backoff = ReconnectBackoff()
        #expect((0..<6).map { _ in backoff.nextDelay() } == [.seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10), .seconds(10)])
        backoff.succeeded()
        #expect(backoff.nextDelay() == .seconds(2))
    }
}
