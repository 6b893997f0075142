import Foundation
import Synchronization
import ZRCTestSupport

/// Debian's headless Chromium under Playwright for Python (`Tools/web-test/driver.py`), one JSON
/// command per line; shared by the browser viewer's tests and `zrc-bench web`. The Python comes
/// from `ZRC_PLAYWRIGHT_PYTHON` (Tools/test.sh and Tools/bench.sh set it from
/// Tools/install-playwright.sh) and the script from `ZRC_REPOSITORY`; without them it fails with
/// that instruction.
public actor BrowserDriver {
    private let process: Process
    private let input: FileHandle
    private var lines: AsyncStream<String>.Iterator
    private let errors = LogBuffer()

    /// The browser's process (Playwright's Python; Chromium runs under it).
    public nonisolated let processIdentifier: Int32

    public static func start() async throws -> BrowserDriver {
        let environment = ProcessInfo.processInfo.environment
        guard let python = environment["ZRC_PLAYWRIGHT_PYTHON"], FileManager.default.isExecutableFile(atPath: python) else {
            throw BrowserDriverError("no Playwright: set ZRC_PLAYWRIGHT_PYTHON to the python Tools/install-playwright.sh prints (Tools/test.sh and Tools/bench.sh do)")
        }
        guard let repository = environment["ZRC_REPOSITORY"] else {
            throw BrowserDriverError("ZRC_REPOSITORY is not set to the checkout (Tools/test.sh and Tools/bench.sh set it)")
        }
        let driver = try BrowserDriver(python: python, script: "\(repository)/Tools/web-test/driver.py")
        let ready = try await driver.nextLine(timeout: .seconds(120))
        guard ready.contains("\"ready\"") else { throw BrowserDriverError("the browser did not start: \(ready) \(driver.log)") }
        return driver
    }

    private init(python: String, script: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let (stream, sink) = AsyncStream<String>.makeStream(bufferingPolicy: .unbounded)
        let pending = Mutex("")
        // Read by threads of their own (`PipeDrain`: libdispatch's read sources crashed the
        // test process).
        PipeDrain.start(stdout.fileHandleForReading, name: "zrc-browser-stdout", received: { data in
            let complete: [String] = pending.withLock { buffer in
                buffer += String(decoding: data, as: UTF8.self)
                var parts = buffer.components(separatedBy: "\n")
                buffer = parts.removeLast()
                return parts
            }
            for line in complete where !line.isEmpty { sink.yield(line) }
        }, ended: { sink.finish() })
        let errors = self.errors
        // The newest 64 KiB: a chatty page cannot grow it without bound.
        PipeDrain.start(stderr.fileHandleForReading, name: "zrc-browser-stderr",
                        received: { data in errors.append(String(decoding: data, as: UTF8.self)) }, ended: {})
        try process.run()
        self.process = process
        processIdentifier = process.processIdentifier
        input = stdin.fileHandleForWriting
        lines = stream.makeAsyncIterator()
    }

    /// What the browser and the page printed (console messages included).
    public nonisolated var log: String { errors.text }

    private func nextLine(timeout: Duration) async throws -> String {
        // The driver answers every command; a browser that hangs is stopped by the deadline.
        let process = self.process
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            process.terminate()
        }
        defer { watchdog.cancel() }
        var iterator = lines
        defer { lines = iterator }
        guard let line = await iterator.next(isolation: self) else {
            throw BrowserDriverError("the browser driver ended: \(log.suffix(2000))")
        }
        return line
    }

    /// Runs one command; returns its answer or throws its error.
    @discardableResult
    public func call(_ op: String, _ arguments: [String: any Sendable] = [:], timeout: Duration = .seconds(120)) async throws -> sending [String: Any] {
        var command = arguments as [String: Any]
        command["op"] = op
        var data = try JSONSerialization.data(withJSONObject: command)
        data.append(0x0A)
        try input.write(contentsOf: data)
        let line = try await nextLine(timeout: timeout)
        guard let answer = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw BrowserDriverError("the browser driver said: \(line)")
        }
        guard answer["ok"] as? Bool == true else {
            throw BrowserDriverError("\(op) failed in the browser: \(answer["error"] ?? line)\n\(answer["trace"] ?? "")")
        }
        return answer
    }

    public func close() async {
        try? input.write(contentsOf: Data("{\"op\":\"quit\"}\n".utf8))
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        while process.isRunning, clock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { process.terminate() }
    }
}

public struct BrowserDriverError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The newest 64 KiB of what the browser printed.
final class LogBuffer: Sendable {
    private let buffer = Mutex("")
    var text: String { buffer.withLock { $0 } }
    func append(_ more: String) { buffer.withLock { $0 = String(($0 + more).suffix(65536)) } }
}
