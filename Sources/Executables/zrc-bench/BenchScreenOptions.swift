import ArgumentParser
import Foundation
import Logging

/// The screen a benchmark measures: a given display, or an Xvfb of its own at a size.
struct BenchScreenOptions: ParsableArguments {
    @Option(help: "X display to use instead of starting Xvfb (its content will be painted over).")
    var display: String?

    @Option(help: "Screen size of the Xvfb started for the benchmark (WIDTHxHEIGHT).")
    var size = "1920x1080"

    func validate() throws {
        guard parsedSize != nil else { throw ValidationError("--size must look like 1920x1080 (each side 64–8192)") }
    }

    var parsedSize: (width: Int, height: Int)? {
        let parts = size.split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, (64...8192).contains(parts[0]), (64...8192).contains(parts[1]) else { return nil }
        return (parts[0], parts[1])
    }

    /// The display to measure, and the Xvfb started for it (to be stopped) if any.
    func open() throws -> (name: String, server: BenchChild?) {
        guard let (width, height) = parsedSize else { throw ValidationError("--size must look like 1920x1080") }
        return try BenchDisplay.open(given: display, width: width, height: height)
    }
}

extension BenchScreenOptions {
    /// Runs `body` with the display to measure, a scratch directory and a quiet logger, and stops
    /// what it started (children are killed on SIGINT/SIGTERM too).
    func run(_ body: (_ display: String, _ directory: URL, _ logger: Logger) async throws -> Void) async throws {
        var logger = Logger(label: "zrc-bench")
        logger.logLevel = .warning
        let signals = BenchChild.killChildrenOnSignal()
        defer { _ = signals }
        let (displayName, xvfb) = try open()
        defer { xvfb?.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(displayName, directory, logger)
    }
}
