import ArgumentParser
import ZRCFrames
import ZRCX11

/// What the test client draws while the host is measured.
enum Workload: String, CaseIterable, ExpressibleByArgument {
    case staticScreen = "static"
    case typing
    case motion

    var title: String {
        switch self {
        case .staticScreen: "static screen"
        case .typing: "typing-sized changes (3 glyphs per update, 30/s)"
        case .motion: "full-screen motion (the whole picture scrolls)"
        }
    }

    /// Updates the painter draws per second: typing at a fast typist's pace, motion faster than
    /// any display so that the host, not the painter, sets the update rate.
    var paintRate: Int {
        switch self {
        case .staticScreen: 0
        case .typing: 30
        case .motion: 120
        }
    }

    /// A desktop-like picture twice the screen's width (so it can scroll): smooth gradients with
    /// fine detail, so JPEG has real work to do (a bare Xvfb root is one colour, which would make
    /// every tile solid and the figures meaningless).
    static func picture(width: Int, height: Int) -> PixelBuffer {
        var image = PixelBuffer(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let detail = UInt32((x * 7 + y * 13) % 23)
                let r = UInt32(x * 255 / max(1, width)) ^ detail
                let g = UInt32(y * 255 / max(1, height)) ^ (detail << 1)
                let b = UInt32((x / 3 + y) % 256)
                image.setPixel(x: x, y: y, rgb: (r & 0xFF) << 16 | (g & 0xFF) << 8 | (b & 0xFF))
            }
        }
        return image
    }

    /// Draws update number `step` of the workload (the picture is loaded and shown already).
    func paint(step: Int, on painter: X11Painter) throws {
        switch self {
        case .staticScreen:
            break
        case .typing:
            // Three glyph-sized changes, like characters appearing in a terminal or editor.
            for index in 0..<3 {
                let x = (step * 97 + index * 131) % (painter.width - 8)
                let y = (step * 31 + index * 71) % (painter.height - 14)
                try painter.show(pictureFrom: (step * 13 + index * 8) % painter.width, y, in: ScreenRect(x: x, y: y, width: 8, height: 14))
            }
        case .motion:
            // Scrolling by a few pixels per update changes every pixel of the screen.
            let offset = (step * 5) % painter.width
            try painter.show(pictureFrom: offset, 0, in: ScreenRect(x: 0, y: 0, width: painter.width, height: painter.height))
        }
    }
}
