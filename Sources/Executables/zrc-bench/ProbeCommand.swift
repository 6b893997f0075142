import ArgumentParser
import Foundation
import Synchronization
import ZRCX11
import ZRCProtocol
import ZRCFrames

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

    @Flag(help: "Move the picture around the square while stdin says `motion` (until `still`; each is answered once drawn).")
    var motion = false

    @Option(help: "How the picture moves: scroll (sideways, as a whole) or video (thin bands going opposite ways, so nothing moves as a whole).")
    var motionKind: MotionKind = .scroll

    func run() throws {
        let painter = try X11Painter(displayName: display)
        // Twice the screen's width in motion, so the picture can scroll.
        let picture = Workload.picture(width: painter.width * (motion ? 2 : 1), height: painter.height)
        try painter.loadPicture(picture.bytes, width: picture.width, height: picture.height)
        try painter.show(pictureFrom: 0, 0, in: PixelRect(x: 0, y: 0, width: painter.width, height: painter.height))
        let square = Self.square(width: painter.width, height: painter.height)
        var colour = 0
        try painter.fill(square, rgb: Self.colours[colour])
        try painter.listenForButtonPresses()
        try painter.sync()
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        guard motion else {
            while true {
                _ = try painter.waitForButtonPress()
                colour = 1 - colour
                try painter.fill(square, rgb: Self.colours[colour])
                try painter.sync()
            }
        }
        try runWithMotion(painter: painter, square: square)
    }

    /// Clicks flip the square at once; between them, while in motion, the picture moves by 5 px
    /// around the square about 60 times a second (full-screen motion everywhere else).
    private func runWithMotion(painter: X11Painter, square: PixelRect) throws {
        let commands = Mutex<[String]>([])
        Thread.detachNewThread {
            while let line = readLine(strippingNewline: true) { commands.withLock { $0.append(line) } }
            Glibc.exit(0)
        }
        let (width, height) = (painter.width, painter.height)
        let around = [
            PixelRect(x: 0, y: 0, width: width, height: square.y),
            PixelRect(x: 0, y: square.y + square.height, width: width, height: height - square.y - square.height),
            PixelRect(x: 0, y: square.y, width: square.x, height: square.height),
            PixelRect(x: square.x + square.width, y: square.y, width: width - square.x - square.width, height: square.height),
        ].filter { $0.width > 0 && $0.height > 0 }
        var colour = 0, moving = false, step = 0
        while true {
            for command in commands.withLock({ taken in defer { taken = [] }; return taken }) {
                moving = command == "motion"
                try painter.sync()
                FileHandle.standardOutput.write(Data((command + "\n").utf8))
            }
            if moving {
                step += 1
                // Back and forth across the picture (twice the screen's width): a scroll that
                // wrapped around would jump, a change of page rather than motion.
                let travel = (step * 5) % (2 * width)
                let offset = travel <= width ? travel : 2 * width - travel
                for rect in around {
                    switch motionKind {
                    case .scroll:
                        try painter.show(pictureFrom: rect.x + offset, rect.y, in: rect)
                    case .video:
                        for top in stride(from: rect.y, to: rect.y + rect.height, by: MotionKind.bandRows) {
                            let band = PixelRect(x: rect.x, y: top, width: rect.width, height: min(MotionKind.bandRows, rect.y + rect.height - top))
                            let shift = (top / MotionKind.bandRows) % 2 == 0 ? offset : width - offset
                            try painter.show(pictureFrom: rect.x + shift, top, in: band)
                        }
                    }
                }
                try painter.sync()
            }
            // Clicks are answered within a millisecond, between motion frames too, as an
            // application with its own event loop would.
            for _ in 0..<(moving ? 16 : 1) {
                while try painter.pollButtonPress() != nil {
                    colour = 1 - colour
                    try painter.fill(square, rgb: Self.colours[colour])
                    try painter.sync()
                }
                usleep(1_000)
            }
        }
    }

    static func square(width: Int, height: Int) -> PixelRect {
        PixelRect(x: width / 2 - side / 2, y: height / 2 - side / 2, width: side, height: side)
    }

    /// Which of the two colours a (JPEG-decoded) pixel shows.
    static func colourIndex(of rgb: UInt32) -> Int { rgb >> 16 & 0xFF > rgb & 0xFF ? 0 : 1 }
}

/// The probe's full-screen motion: a sideways scroll, which a host may send as a copy, or a
/// video-like change where every pixel changes but no area moves as a whole.
enum MotionKind: String, CaseIterable, ExpressibleByArgument {
    case scroll
    case video

    /// Rows per band of `video`: thinner than any tile or scroll run, so no area moves as a whole.
    static let bandRows = 4
}
