import Foundation
import Synchronization

/// Debian's headless Chromium under Playwright for Python (`Tools/web-test/driver.py`), one JSON
/// command per line. The Python comes from `ZRC_PLAYWRIGHT_PYTHON` (Tools/test.sh sets it from
/// Tools/install-playwright.sh); without it the tests fail with that instruction.
actor BrowserDriver {
    private let process: Process
    private let input: FileHandle
    private var lines: AsyncStream<String>.Iterator
    private let errors = CapturedOutput()

    static func start() async throws -> BrowserDriver {
        let environment = ProcessInfo.processInfo.environment
        guard let python = environment["ZRC_PLAYWRIGHT_PYTHON"], FileManager.default.isExecutableFile(atPath: python) else {
            throw SetupError("no Playwright: set ZRC_PLAYWRIGHT_PYTHON to the python of Tools/install-playwright.sh (Tools/test.sh does)")
        }
        guard let repository = environment["ZRC_REPOSITORY"] else { throw SetupError("ZRC_REPOSITORY is not set (Tools/test.sh sets it)") }
        let driver = try BrowserDriver(python: python, script: "\(repository)/Tools/web-test/driver.py")
        let ready = try await driver.nextLine(timeout: .seconds(120))
        guard ready.contains("\"ready\"") else { throw SetupError("the browser did not start: \(ready) \(driver.errors.text.stderr)") }
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
        stdout.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                sink.finish()
                return
            }
            let complete: [String] = pending.withLock { buffer in
                buffer += String(decoding: data, as: UTF8.self)
                var parts = buffer.components(separatedBy: "\n")
                buffer = parts.removeLast()
                return parts
            }
            for line in complete where !line.isEmpty { sink.yield(line) }
        }
        let errors = self.errors
        stderr.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            errors.append(stderr: String(decoding: data, as: UTF8.self))
        }
        try process.run()
        self.process = process
        input = stdin.fileHandleForWriting
        lines = stream.makeAsyncIterator()
    }

    /// What the browser and the page printed (console messages included).
    var log: String { errors.text.stderr }

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
            throw SetupError("the browser driver ended: \(errors.text.stderr.suffix(2000))")
        }
        return line
    }

    /// Runs one command; returns its answer or throws its error.
    @discardableResult
    func call(_ op: String, _ arguments: [String: any Sendable] = [:], timeout: Duration = .seconds(120)) async throws -> sending [String: Any] {
        var command = arguments as [String: Any]
        command["op"] = op
        var data = try JSONSerialization.data(withJSONObject: command)
        data.append(0x0A)
        try input.write(contentsOf: data)
        let line = try await nextLine(timeout: timeout)
        guard let answer = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw SetupError("the browser driver said: \(line)")
        }
        guard answer["ok"] as? Bool == true else {
            throw SetupError("\(op) failed in the browser: \(answer["error"] ?? line)\n\(answer["trace"] ?? "")")
        }
        return answer
    }

    func close() async {
        try? input.write(contentsOf: Data("{\"op\":\"quit\"}\n".utf8))
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        while process.isRunning, clock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { process.terminate() }
    }
}
