import Foundation
import Testing

/// A real X application (xterm, …) on a test display, for workloads the synthetic painter never
/// produces: hidden pointers while typing, scrolling text, keymap lookups. Started in a UTF-8
/// locale; killed by `stop()` (or when the object goes).
public final class XApplication: @unchecked Sendable {
    // @unchecked: the only state is `process`, set once in init; `Process` itself is thread-safe
    // for the calls made here (isRunning, processIdentifier, waitUntilExit).
    private let process: Process
    public let display: String
    private let windowClass: String

    /// Starts `command` (its first word found on PATH) on `display`; `windowClass` (default: the
    /// program's name) is what `waitForWindow` looks for.
    public init(display: String, _ command: [String], windowClass: String? = nil, environment extra: [String: String] = [:]) throws {
        self.display = display
        self.windowClass = windowClass ?? URL(fileURLWithPath: command[0]).lastPathComponent
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // exec: the Process's pid is the application's own, so a kill reaches it.
        process.arguments = ["-c", "exec \"$@\" 2>/dev/null", "app"] + command
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display
        environment["LC_ALL"] = "C.UTF-8"
        environment.merge(extra) { $1 }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    deinit { stop() }

    /// SIGKILL (see `PrivateXServer` for why not SIGTERM), and reaps it.
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Waits until the application has mapped a window (xdotool search), 20 s at most.
    public func waitForWindow() async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            try #require(process.isRunning, "\(windowClass) exited before it showed a window (is it installed? Tools/install-deps.sh)")
            if try await XTool.output("xdotool", ["search", "--onlyvisible", "--class", windowClass], display: display).status == 0 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        try #require(Bool(false), "\(windowClass) showed no window on \(display) within 20 s")
    }
}
