import Testing
import ZRCProtocol
import ZRCViewer
import ZRCViewerKit

/// Monitor choice in the viewer core, and the viewport confined to one monitor.
@Suite struct MonitorChoiceTests {
    static let left = MonitorArea(x: 0, y: 0, width: 1280, height: 1024, isPrimary: true, name: "DP-1")
    static let right = MonitorArea(x: 1280, y: 0, width: 1920, height: 1080, isPrimary: false, name: "HDMI-1\u{1B}[2J")

    @Test func ctrlBracketMCyclesThroughEveryMonitorAndBackToAll() {
        var core = ViewerCore(viewOnly: false, clipboard: true, clipboardFromHost: false, takeHint: "")
        let layout = core.handle(.monitorLayout([Self.left, Self.right]), now: 0)
        guard case .monitors(let named) = layout.first else { Issue.record("no layout for the front end"); return }
        #expect(!named[1].name.unicodeScalars.contains("\u{1B}"), "a peer's name reaches no terminal unsanitized")
        #expect(layout.count == 1, "nothing changes what is shown")
        #expect(core.handle(.nextMonitor, now: 0).first == .show(Self.left))
        #expect(core.handle(.nextMonitor, now: 0).first == .show(named[1]))
        #expect(core.handle(.nextMonitor, now: 0).first == .show(nil))
        #expect(core.handle(.showMonitor(7), now: 0).first == .show(nil), "an index out of range shows all")
    }

    @Test func theChoiceSurvivesALayoutChangeAndFallsBackWhenItsMonitorGoes() {
        var choice = MonitorChoice()
        _ = choice.adopt([Self.left, Self.right])
        _ = choice.show(1)
        var moved = Self.right
        moved.x = 0
        var primary = Self.left
        primary.x = 1920
        #expect(choice.adopt([moved, primary]) == nil)
        #expect(choice.shown == 0 && choice.area?.x == 0, "kept by name, at its new place")
        let notice = choice.adopt([primary])
        #expect(choice.area == nil && notice?.contains("gone") == true)
        #expect(choice.cycle() == "the host has one monitor" && choice.area == nil)
    }

    @Test(arguments: [(x: 0.0, y: 0.0), (x: 399.9, y: 299.9), (x: 200.0, y: 150.0), (x: -5.0, y: 10.0)])
    func theViewportConfinedToOneMonitorMapsIntoItAlone(point: (x: Double, y: Double)) {
        var viewport = Viewport(remoteWidth: 3200, remoteHeight: 1080, areaWidth: 400, areaHeight: 300)
        viewport.show(region: (1280, 0, 1920, 1080))
        #expect(viewport.showsRegion && viewport.originX == 1280 && viewport.visibleWidth == 1920)
        if let pixel = viewport.remotePixel(x: point.x, y: point.y) {
            #expect((1280..<3200).contains(pixel.x) && (0..<1080).contains(pixel.y))
        }
        let request = viewport.pictureRequest
        #expect(Int(request.regionX) >= 1279 && Int(request.regionX) + Int(request.regionWidth) <= 3200)
        viewport.zoom(by: 4, keepingLocal: 0, 0)
        viewport.pan(byLocal: -10_000, -10_000)
        #expect(viewport.originX == 1280, "panning stops at the monitor's edge")
        viewport.show(region: (5000, 0, 10, 10))
        #expect(!viewport.showsRegion, "a region off the screen shows all of it")
    }
}
