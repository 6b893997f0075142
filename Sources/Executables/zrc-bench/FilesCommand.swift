import ArgumentParser
import Foundation
import Glibc
import ZRCFiles
import ZRCSodium

/// File transfer on loopback, beside its floors: a host process sharing a directory, a controller
/// process uploading and downloading one large file (bit-identical, checked), the two floors the
/// issue names measured in the same run (sealing, opening and hashing that many bytes in 16 KiB
/// records; writing and fsyncing them to this disk), and a resume after the controller is killed
/// half way, with the bytes the second run put on the wire.
struct FilesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "files",
        abstract: "Measure file transfer on loopback against its floors, and a resume after a kill.")

    @Option(help: "File size in MiB.")
    var megabytes = 1024

    @Option(help: "Transfers (and floor runs) per direction; medians are printed.")
    var repetitions = 3

    @Option(help: "Where the files go (a real disk: the write floor is measured there).")
    var directory = "/var/tmp"

    /// One direction alone, e.g. to profile it (`perf record -g -- zrc-bench files --direction download`).
    enum Direction: String, ExpressibleByArgument, CaseIterable { case both, upload, download }

    @Option(help: "Which transfers to measure: both, upload or download (the resume runs with upload).")
    var direction = Direction.both

    func validate() throws {
        guard (16...16_384).contains(megabytes) else { throw ValidationError("--megabytes must be 16…16384") }
        guard (1...20).contains(repetitions) else { throw ValidationError("--repetitions must be 1…20") }
    }

    func run() async throws {
        let signals = BenchChild.killChildrenOnSignal()
        defer { _ = signals }
        let work = URL(fileURLWithPath: directory).appendingPathComponent("zrc-bench-files-\(getpid())")
        let root = work.appendingPathComponent("root")
        for folder in ["root", "host", "controller", "local", "down"] {
            try FileManager.default.createDirectory(at: work.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        defer { try? FileManager.default.removeItem(at: work) }
        let size = megabytes << 20
        let source = work.appendingPathComponent("local/source.bin")
        try Self.writeRandom(source, bytes: size)
        print("zrc-bench files: loopback, \(megabytes) MiB, \(repetitions) repetitions, files in \(work.path), "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores")

        let (display, xvfb) = try BenchDisplay.start(width: 640, height: 480)
        defer { xvfb.stop() }
        let host = try BenchChild("the host", executable: BenchChild.selfExecutable, arguments: [
            "flood-host", "--display", display, "--directory", work.appendingPathComponent("host").path, "--file-root", root.path,
        ])
        defer { host.stop() }
        guard try await host.nextLine(timeout: .seconds(30)).hasPrefix("port ") else { throw BenchError("the host did not start") }

        let controller = try await Self.controller(host: host, directory: work.appendingPathComponent("controller"))
        defer { controller.stop() }
        var up = Samples(), down = Samples(), crypto = Samples(), disk = Samples()
        /// Each transfer's rate over the lower floor measured around it: this shared machine's
        /// speed drifts by a fifth within a run, so the crypto floor is measured just before and
        /// just after each transfer and their mean taken (one measurement between two transfers
        /// serves both); a ratio between moments apart measured the drift as much as the transfer.
        var ratio = (up: Samples(), down: Samples())
        var cost = (up: TransferCost(), down: TransferCost())
        if direction == .download { try FileManager.default.copyItem(at: source, to: root.appendingPathComponent("bench.bin")) }
        var cryptoBefore = try Self.sealOpenHash(bytes: size)
        crypto.add(value: cryptoBefore)
        for _ in 0..<repetitions {
            let diskNow = try Self.writeAndSync(root.appendingPathComponent("floor.bin"), bytes: size)
            disk.add(value: diskNow)
            if direction != .download {
                let before = try await TransferCost.reading(host, controller)
                let (upSeconds, _) = try await Self.ask(controller, "upload \(source.path) bench.bin", answer: "uploaded")
                try await cost.up.add(since: before, host, controller, bytes: size)
                let cryptoAfter = try Self.sealOpenHash(bytes: size)
                crypto.add(value: cryptoAfter)
                up.add(value: Double(size) / upSeconds / 1e6)
                ratio.up.add(value: Double(size) / upSeconds / 1e6 / min((cryptoBefore + cryptoAfter) / 2, diskNow))
                cryptoBefore = cryptoAfter
            }
            guard direction != .upload else { continue }
            let before = try await TransferCost.reading(host, controller)
            let (downSeconds, _) = try await Self.ask(controller, "download bench.bin \(work.appendingPathComponent("down").path) bench.bin \(size)",
                                                      answer: "downloaded")
            try await cost.down.add(since: before, host, controller, bytes: size)
            let cryptoAfter = try Self.sealOpenHash(bytes: size)
            crypto.add(value: cryptoAfter)
            down.add(value: Double(size) / downSeconds / 1e6)
            ratio.down.add(value: Double(size) / downSeconds / 1e6 / min((cryptoBefore + cryptoAfter) / 2, diskNow))
            cryptoBefore = cryptoAfter
        }
        let identical = (direction == .download || Self.identical(source, root.appendingPathComponent("bench.bin")))
            && (direction == .upload || Self.identical(source, work.appendingPathComponent("down/bench.bin")))
        controller.stop()

        print("  measure                                   median      p5 … p95   [MB/s]")
        print("  floor: seal + open + hash, 16 KiB records  \(Self.columns(crypto))")
        print("  floor: write + fsync to this disk          \(Self.columns(disk))")
        for (name, samples, ratios) in [("upload  ", up, ratio.up), ("download", down, ratio.down)] where !samples.isEmpty {
            print("  \(name)                                   \(Self.columns(samples))   = "
                + String(format: "%.2f × the lower floor (target ≥ 0.80; each ratio %.2f … %.2f)",
                         ratios.percentile(0.5), ratios.percentile(0), ratios.percentile(1)))
        }
        print("  (each transfer over the lower floor, the crypto floor the mean of its runs just before and just after it; median of the \(repetitions))")
        print("  bit-identical: \(identical ? "yes" : "NO")")
        for (name, samples) in [("upload", cost.up), ("download", cost.down)] where !samples.host.isEmpty {
            print(String(format: "  CPU per MB, %@: host %.2f ms, controller %.2f ms (medians; the crypto floor is %.2f ms for seal, open and hash)",
                         name, samples.host.percentile(0.5), samples.controller.percentile(0.5), 1000 / crypto.percentile(0.5)))
        }
        guard direction != .download else { return }
        let (resent, resumedIdentical) = try await Self.resume(source, as: root.appendingPathComponent("resumed.bin"), size: size, host: host,
                                                               directory: work.appendingPathComponent("controller"))
        print(String(format: "  resume after the controller was killed at 50%%: %.1f%% of the file sent again on the wire (target ≤ 55%%), bit-identical: %@",
                     resent * 100, resumedIdentical ? "yes" : "NO"))
    }

    /// Uploads `source` with a controller killed when half the file is on the host's disk, then
    /// resumes it with a new one: the share of the file the second sent, and whether the result
    /// is bit-identical.
    private static func resume(_ source: URL, as target: URL, size: Int, host: BenchChild, directory: URL) async throws -> (Double, Bool) {
        let first = try await controller(host: host, directory: directory)
        first.send(line: "upload \(source.path) \(target.lastPathComponent)")
        while true {
            let line = try await first.nextLine(timeout: .seconds(600))
            if line.hasPrefix("failed") || line.hasPrefix("uploaded") { throw BenchError("the upload to be killed ended first: \(line)") }
            if line.hasPrefix("progress "), let done = Int(line.dropFirst(9)), done >= size / 2 { break }
        }
        first.kill9()
        let second = try await controller(host: host, directory: directory)
        defer { second.stop() }
        let (_, wire) = try await ask(second, "upload \(source.path) \(target.lastPathComponent) resume", answer: "uploaded")
        return (Double(wire) / Double(size), identical(source, target))
    }

    private static func columns(_ samples: Samples) -> String {
        String(format: "%8.0f   %6.0f … %6.0f", samples.percentile(0.5), samples.percentile(0.05), samples.percentile(0.95))
    }

    /// A connected controller process paired with `host`, in control (a killed one's session may
    /// hold control until the host notices its end: tried again for up to 30 s).
    private static func controller(host: BenchChild, directory: URL) async throws -> BenchChild {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            host.send(line: "invite")
            let invite = try await host.nextLine(timeout: .seconds(30))
            let child = try BenchChild("the controller", executable: BenchChild.selfExecutable,
                                       arguments: ["files-controller", "--directory", directory.path])
            child.send(line: invite)
            let said = try await child.nextLine(timeout: .seconds(30))
            if said == "connected" { return child }
            child.stop()
            guard said == "view-only", ContinuousClock.now < deadline else { throw BenchError("the controller said: \(said)") }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// Sends `command`; waits for the `answer` line (progress lines skipped): its seconds and byte count.
    private static func ask(_ child: BenchChild, _ command: String, answer: String) async throws -> (Double, Int) {
        child.send(line: command)
        while true {
            let line = try await child.nextLine(timeout: .seconds(1800))
            let words = line.split(separator: " ")
            if words.first.map(String.init) == answer, words.count == 3, let seconds = Double(words[1]), let bytes = Int(words[2]) {
                return (seconds, bytes)
            }
            if line.hasPrefix("failed") { throw BenchError("\(command): \(line)") }
        }
    }

    /// Incompressible bytes (xorshift; no transfer compresses, but nothing should look regular).
    private static func writeRandom(_ url: URL, bytes: Int) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var chunk = [UInt64](repeating: 0, count: 1 << 17)
        var written = 0
        while written < bytes {
            for index in chunk.indices {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                chunk[index] = state
            }
            let data = chunk.withUnsafeBytes { Data($0.prefix(min($0.count, bytes - written))) }
            try handle.write(contentsOf: data)
            written += data.count
        }
    }

    /// MB/s sealing, opening and hashing `bytes` in 16 KiB records (ChaCha20-Poly1305 and BLAKE2b, libsodium).
    private static func sealOpenHash(bytes: Int) throws -> Double {
        let crypto = try SodiumCrypto()
        let key = crypto.randomSecret(count: 32)
        let record = 16 * 1024
        var buffer = [UInt8](repeating: 7, count: record + 16)
        let digest = FileDigest()
        let clock = ContinuousClock()
        let started = clock.now
        var nonce: UInt64 = 0
        for _ in 0..<(bytes / record) {
            try buffer.withUnsafeMutableBytes { raw in
                crypto.encryptInPlace(key: key, nonce: nonce, associatedData: [], buffer: raw)
                try crypto.decryptInPlace(key: key, nonce: nonce, associatedData: [], buffer: raw)
                digest.update(UnsafeRawBufferPointer(rebasing: raw.prefix(record)))
            }
            nonce += 1
        }
        _ = digest.finish()
        return Double(bytes) / FilesControllerCommand.seconds(clock.now - started) / 1e6
    }

    /// MB/s writing `bytes` to `url` in 1 MiB writes, then fsync; the file is removed after.
    private static func writeAndSync(_ url: URL, bytes: Int) throws -> Double {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw BenchError("cannot create \(url.path)") }
        defer { unlink(url.path) }
        let chunk = [UInt8](repeating: 0x5A, count: 1 << 20)
        let clock = ContinuousClock()
        let started = clock.now
        var written = 0
        while written < bytes {
            let count = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, min($0.count, bytes - written)) }
            guard count > 0 else {
                close(descriptor)
                throw BenchError("writing \(url.path) failed")
            }
            written += count
        }
        fsync(descriptor)
        close(descriptor)
        return Double(bytes) / FilesControllerCommand.seconds(clock.now - started) / 1e6
    }

    private static func identical(_ a: URL, _ b: URL) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/cmp")
        process.arguments = ["-s", a.path, b.path]
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

/// What transfers cost each process in CPU time per megabyte (host and controller, each as
/// `getrusage` counts it): unlike the rate, it does not depend on what else shares the cores.
struct TransferCost {
    var host = Samples(), controller = Samples()

    static func reading(_ host: BenchChild, _ controller: BenchChild) async throws -> (Double, Double) {
        (try await ProcessCPU.of(host), try await ProcessCPU.of(controller))
    }

    mutating func add(since before: (Double, Double), _ host: BenchChild, _ controller: BenchChild, bytes: Int) async throws {
        let after = try await Self.reading(host, controller)
        self.host.add(value: (after.0 - before.0) * 1000 / (Double(bytes) / 1e6))
        self.controller.add(value: (after.1 - before.1) * 1000 / (Double(bytes) / 1e6))
    }
}
