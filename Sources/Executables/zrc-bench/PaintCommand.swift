import ArgumentParser
import Foundation
import ZRCCommandSupport
import ZRCX11
import ZRCProtocol
import ZRCFrames

/// The benchmark's test client, in a process of its own so its time is not counted as the host's.
struct PaintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "paint", abstract: "Draw a workload on an X display until killed (used by `pipeline`).",
        shouldDisplay: false)

    @Option(help: "X display to draw on.")
    var display: String

    @Option(help: "What to draw.")
    var workload: Workload

    @Option(help: "Updates drawn per second (default: the workload's own pace).")
    var rate: Int?

    @Flag(help: "Say `still` once the picture is shown, and start the workload only after reading a line on stdin.")
    var waitForGo = false

    func run() throws {
        let painter = try X11Painter(displayName: display)
        let picture = Workload.picture(width: painter.width * 2, height: painter.height)
        try painter.loadPicture(picture.bytes, width: picture.width, height: picture.height)
        try painter.show(pictureFrom: 0, 0, in: PixelRect(x: 0, y: 0, width: painter.width, height: painter.height))
        try painter.sync()
        if waitForGo {
            FileHandle.standardOutput.write(Data("still\n".utf8))
            _ = readLine()
        }
        var application: Process?
        var window = ""
        // Kept alive while the child runs: the SIGTERM handler that takes the application along.
        var signals: [any DispatchSourceSignal] = []
        if workload.isApplication {
            application = try workload.startApplication(display: display)
            window = try ApplicationWorkload.window(ofClass: "xterm", display: display)
            // Pointer over the terminal (with no window manager the focus follows it).
            try ApplicationWorkload.xdotool(["mousemove", "60", "60"], display: display)
            let started = application
            // The parent stops this child with SIGTERM; the application goes with it.
            signals = CommandRunner.onTerminationSignal { number in
                if let started, started.isRunning { kill(started.processIdentifier, SIGKILL) }
                Glibc.exit(128 + number)
            }
        }
        // Unbuffered: the parent waits for this line.
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        try withExtendedLifetime((signals, application)) { try loop(painter: painter, window: window) }
    }

    private func loop(painter: X11Painter, window: String) throws -> Never {
        let paintRate = rate ?? workload.paintRate
        guard paintRate > 0 else {
            while true { sleep(60) }
        }
        let clock = ContinuousClock()
        let interval = Duration.seconds(1) / paintRate
        var next = clock.now
        var step = 1
        while true {
            if workload.isApplication {
                try workload.drive(step: step, window: window, display: display)
            } else {
                try workload.paint(step: step, on: painter)
            }
            // A round trip per update keeps the painter in step with the server instead of
            // queueing requests faster than it draws them.
            try painter.sync()
            step += 1
            next += interval
            let wait = next - clock.now
            if wait > .zero { usleep(UInt32(wait / .microseconds(1))) } else { next = clock.now }
        }
    }
}
