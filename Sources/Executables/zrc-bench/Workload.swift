import Foundation
import ArgumentParser
import ZRCFrames
import ZRCX11
import ZRCProtocol

/// What the test client draws while the host is measured.
enum Workload: String, CaseIterable, ExpressibleByArgument {
    case staticScreen = "static"
    case typing
    case motion
    /// Full-screen motion where nothing moves as a whole (4-row bands sliding opposite ways), so
    /// it travels as pictures, not copies: what video or a game costs.
    case video
    /// A real xterm running `cat`, typed into with xdotool (30 characters a second).
    case xtermTyping = "xterm-typing"
    /// A real xterm whose text scrolls by 50 lines a second.
    case xtermScrolling = "xterm-scrolling"
    /// A real xterm window dragged around with `xdotool windowmove` (30 moves a second).
    case windowMove = "window-move"

    var title: String {
        switch self {
        case .staticScreen: "static screen"
        case .typing: "typing-sized changes (3 glyphs per update, 30/s)"
        case .motion: "full-screen motion (the whole picture scrolls)"
        case .video: "full-screen video-like motion (4-row bands sliding opposite ways)"
        case .xtermTyping: "xterm: typing into cat (xdotool, 30 characters/s)"
        case .xtermScrolling: "full-screen xterm: text scrolling (50 lines/s)"
        case .windowMove: "a window moved with xdotool windowmove (30 moves/s)"
        }
    }

    /// Whether a real application plays it (in `PaintCommand`) instead of the painter.
    var isApplication: Bool {
        switch self {
        case .staticScreen, .typing, .motion, .video: false
        case .xtermTyping, .xtermScrolling, .windowMove: true
        }
    }

    /// Updates the painter draws per second: typing at a fast typist's pace, motion faster than
    /// any display so that the host, not the painter, sets the update rate.
    var paintRate: Int {
        switch self {
        case .staticScreen: 0
        case .typing, .xtermTyping, .windowMove: 30
        case .motion, .video: 120
        case .xtermScrolling: 0  // the shell in the xterm sets its own pace
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
                try painter.show(pictureFrom: (step * 13 + index * 8) % painter.width, y, in: PixelRect(x: x, y: y, width: 8, height: 14))
            }
        case .motion:
            // Scrolling by a few pixels per update changes every pixel of the screen.
            let offset = (step * 5) % painter.width
            try painter.show(pictureFrom: offset, 0, in: PixelRect(x: 0, y: 0, width: painter.width, height: painter.height))
        case .video:
            let band = 4
            for y in stride(from: 0, to: painter.height, by: band) {
                let shift = (step * 5) % painter.width
                let offset = (y / band).isMultiple(of: 2) ? shift : painter.width - shift
                try painter.show(pictureFrom: offset, y, in: PixelRect(x: 0, y: y, width: painter.width, height: min(band, painter.height - y)))
            }
        case .xtermTyping, .xtermScrolling, .windowMove:
            break  // driven by `drive(step:window:display:)`
        }
    }

    /// The application to start for an application workload.
    func startApplication(display: String) throws -> Process {
        switch self {
        case .xtermScrolling:
            try ApplicationWorkload.xterm(
                "i=0; while :; do i=$((i+1)); echo \"line $i: the quick brown fox jumps over the lazy dog 0123456789\"; sleep 0.02; done",
                display: display, fullScreen: true)
        case .staticScreen, .typing, .motion, .video, .xtermTyping, .windowMove:
            // The terminal echoes every typed character, as when typing at a prompt.
            try ApplicationWorkload.xterm("cat >/dev/null", display: display)
        }
    }

    /// One step of an application workload.
    func drive(step: Int, window: String, display: String) throws {
        switch self {
        case .xtermTyping:
            let letters = Array("the quick brown fox jumps over the lazy dog ")
            try ApplicationWorkload.xdotool(["type", "--delay", "0", String(letters[step % letters.count])], display: display)
        case .windowMove:
            // Around a circle, so the whole window moves and exposes what was under it.
            let angle = Double(step) / 30 * 2 * Double.pi / 4
            let x = 300 + Int(250 * cos(angle)), y = 250 + Int(200 * sin(angle))
            try ApplicationWorkload.xdotool(["windowmove", window, "\(x)", "\(y)"], display: display)
        case .staticScreen, .typing, .motion, .video, .xtermScrolling:
            break
        }
    }
}
