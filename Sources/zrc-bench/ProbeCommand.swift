import ArgumentParser
import Foundation
import ZRCX11

/// The latency benchmark's probe: a desktop-like picture with a square in the middle that flips
/// between two colours on every click, the way an application answers input. Runs in a process
/// of its own so its time is not counted as the host's.
struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe", abstract: "Show a square that flips colour on every click (used by `latency`).", shouldDisplay: false)

    static let side = 128
    static let colours: [UInt32] = [0xE0_2020, 0x20_40E0]

    @Option(help: "X display to draw on.")
    var display: String

    func run() throws {
        let painter = try X11Painter(displayName: display)
        let picture = Workload.picture(width: painter.width, height: painter.height)
        try painter.loadPicture(picture.bytes, width: picture.width, height: picture.height)
        try painter.show(pictureFrom: 0, 0, in: ScreenRect(x: 0, y: 0, width: painter.width, height: painter.height))
        let square = Self.square(width: painter.width, height: painter.height)
        var colour = 0
        try painter.fill(square, rgb: Self.colours[colour])
        try painter.listenForButtonPresses()
        try painter.sync()
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        while true {
            _ = try painter.waitForButtonPress()
            colour = 1 - colour
            try painter.fill(square, rgb: Self.colours[colour])
            try painter.sync()
        }
    }

    static func square(width: Int, height: Int) -> ScreenRect {
        ScreenRect(x: width / 2 - side / 2, y: height / 2 - side / 2, width: side, height: side)
    }

    /// Which of the two colours a (JPEG-decoded) pixel shows.
    static func colourIndex(of rgb: UInt32) -> Int { rgb >> 16 & 0xFF > rgb & 0xFF ? 0 : 1 }
}
