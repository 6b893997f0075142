import Foundation

/// Workloads played by real X applications rather than the synthetic painter: what users do and
/// what the painter never produced (a terminal hiding the pointer while you type, text scrolling
/// by whole lines, a window dragged across the screen). The paint child starts the application
/// on the benchmark's display and drives it with xdotool until it is stopped.
enum ApplicationWorkload {
    /// An xterm of 120×40 at the top left (or filling the screen), running `command`.
    static func xterm(_ command: String, display: String, fullScreen: Bool = false) throws -> Process {
        try launch(["xterm"] + (fullScreen ? ["-maximized"] : ["-geometry", "120x40+0+0"]) + ["-u8", "-e", "sh", "-c", command],
                   display: display)
    }

    /// Starts `arguments` (found on PATH) on `display` in a UTF-8 locale.
    static func launch(_ arguments: [String], display: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display
        environment["LC_ALL"] = "C.UTF-8"
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Runs xdotool with `arguments` on `display` and waits for it; its status.
    @discardableResult
    static func xdotool(_ arguments: [String], display: String) throws -> Int32 {
        let process = try launch(["xdotool"] + arguments, display: display)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The first visible window of `windowClass`, waiting up to 20 s for it to appear.
    static func window(ofClass windowClass: String, display: String) throws -> String {
        for _ in 0..<200 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["xdotool", "search", "--onlyvisible", "--class", windowClass]
            process.environment = ProcessInfo.processInfo.environment.merging(["DISPLAY": display]) { $1 }
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            if let first = text.split(separator: "\n").first { return String(first) }
            usleep(100_000)
        }
        throw BenchError("no \(windowClass) window appeared on \(display) within 20 s (is it installed? Tools/install-deps.sh)")
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
