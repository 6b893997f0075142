import Foundation
import Testing
import ZRCXTestSupport

/// The real screen path: `zrc-host serve` captures a private Xvfb (MIT-SHM), sends solid tiles and
/// JPEG rectangles, and `zrc-ctl screenshot` composes and saves them.
@Suite struct ScreenshotEndToEndTests {
    @Test func aScreenshotShowsTheHostsScreen() async throws {
        let env = try EndToEndEnvironment()
        defer { env.cleanUp() }
        let display = try await PrivateDisplay.start()
        defer { display.stop() }
        // Blue with a red grid every 16 pixels: solid tiles and textured ones.
        try PrivateDisplay.run("/usr/bin/xsetroot", ["-display", display.name, "-mod", "16", "16", "-fg", "#ff0000", "-bg", "#0000ff"])

        let hostKey = "host-\(env.tag)", controllerKey = "ctl-\(env.tag)"
        let host = try env.launch("zrc-host", ["serve", "--listen", "127.0.0.1:0", "--key-id", hostKey, "--display", display.name, "--no-indicator"],
                                  role: "host")
        let hostPID = host.process.processIdentifier
        try await host.terminatingAfter {
            #expect(await host.waitForOutput("zrc-host: serving"), "\(host.stderr)")
            #expect(host.stderr.contains("capture via MIT-SHM"), "\(host.stderr)")
            let invite = try await env.invite(keyID: hostKey)
            let pair = try await env.pair(invite: invite, ["--name", "desk", "--key-id", controllerKey], role: "controller")
            #expect(pair.status == 0, "\(pair.stderr)")

            let file = env.root.appendingPathComponent("screen.png")
            let shot = try await env.run("zrc-ctl", ["screenshot", "desk", file.path, "--key-id", controllerKey], role: "controller")
            #expect(shot.status == 0, "\(shot.stderr)")
            #expect(shot.stdout.contains("Saved 640x480"))
            let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)

            // Count colours with an independent PNG reader.
            let png = try await IndependentPNGReader.read(file.path)
            #expect(png.width == 640 && png.height == 480)
            var blue = 0, red = 0
            for y in 0..<png.height {
                for x in 0..<png.width {
                    let rgb = png.pixel(x: x, y: y)
                    let (r, g, b) = (rgb >> 16, rgb >> 8 & 0xFF, rgb & 0xFF)
                    if r < 24 && g < 24 && b > 231 { blue += 1 }
                    if r > 231 && g < 24 && b < 24 { red += 1 }
                }
            }
            let pixels = png.width * png.height
            #expect(blue * 100 / pixels >= 80, "mostly blue: \(blue) of \(pixels)")
            #expect(red * 100 / pixels >= 3, "the red grid is there: \(red) of \(pixels)")

            // The capture segment is private while the host runs and gone once it has exited.
            let segments = SharedMemory.segments(createdBy: hostPID)
            #expect(!segments.isEmpty, "the host captures through MIT-SHM")
            #expect(segments.allSatisfy { $0.mode & 0o777 == 0o600 }, "\(segments)")
            await host.terminate()
            #expect(SharedMemory.segments(createdBy: hostPID).isEmpty, "no SHM segment outlives zrc-host")
        }
    }
}

/// An Xvfb of the test's own, so no other test paints its root window (`PrivateXServer`: Xvfb
/// picks its display number itself).
struct PrivateDisplay {
    let server: PrivateXServer
    var name: String { server.display }

    static func start() async throws -> PrivateDisplay {
        PrivateDisplay(server: try await PrivateXServer.start(["-screen", "0", "640x480x24"]))
    }

    func stop() { server.stop() }

    /// Runs a program to completion and returns its standard output; throws on failure.
    @discardableResult
    static func run(_ path: String, _ arguments: [String], display: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let display {
            var environment = ProcessInfo.processInfo.environment
            environment["DISPLAY"] = display
            process.environment = environment
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw SetupError("\(path) \(arguments.first ?? "") failed") }
        return String(decoding: data, as: UTF8.self)
    }
}

/// System V shared-memory segments as the kernel lists them.
enum SharedMemory {
    static func segments(createdBy pid: Int32) -> [(id: Int, mode: Int)] {
        // Read to the end: String(contentsOfFile:) stops after the first page of a /proc file.
        guard let file = FileHandle(forReadingAtPath: "/proc/sysvipc/shm") else { return [] }
        let table = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        // Columns: key shmid perms size cpid lpid …
        return table.split(separator: "\n").dropFirst().compactMap { line in
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            guard columns.count > 4, Int32(columns[4]) == pid, let id = Int(columns[1]), let mode = Int(columns[2], radix: 8) else { return nil }
            return (id, mode)
        }
    }
}
