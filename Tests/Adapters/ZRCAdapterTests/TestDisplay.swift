import Foundation
import Testing
import ZRCTestSupport
import ZRCXTestSupport

/// The X display the X11 tests draw on and capture from: the Xvfb started by
/// Tools/with-test-services.sh. These tests fail (never skip) without it.
enum TestDisplay {
    static func require() throws -> String {
        let display = ProcessInfo.processInfo.environment["DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }
        return try #require(display, """
            DISPLAY is not set: the X11 adapter tests need a real X server. Run them through Tools/test.sh, or \
            Tools/with-test-services.sh flock /tmp/zrc-swift-build.lock swift test --skip-build --filter ZRCAdapterTests, \
            which start a private Xvfb and export DISPLAY.
            """)
    }

    /// Runs an X client tool against the shared test display; fails with its output if it fails.
    static func run(_ tool: String, _ arguments: [String]) async throws {
        try await XTool.run(tool, arguments)
    }
}

/// A 16×16 two-colour bitmap tiled over the root window with `xsetroot -bitmap`, so every screen
/// pixel has a known colour that does not repeat along short runs (orientation and offset errors
/// show up as mismatches).
struct RootPattern {
    static let side = 16
    let foreground: (red: UInt8, green: UInt8, blue: UInt8)
    let background: (red: UInt8, green: UInt8, blue: UInt8)
    let bits: [[Bool]]

    static func make(seed: UInt64) -> RootPattern {
        var generator = SplitMix64(seed: seed)
        let bits = (0..<side).map { _ in (0..<side).map { _ in Bool.random(using: &generator) } }
        return RootPattern(foreground: (0xD0, 0x3A, 0x7C), background: (0x1E, 0x90, 0xFF), bits: bits)
    }

    /// The expected (blue, green, red) bytes at screen pixel (x, y): the tile's origin is the root
    /// window's origin.
    func expected(x: Int, y: Int) -> (UInt8, UInt8, UInt8) {
        let colour = bits[y % Self.side][x % Self.side] ? foreground : background
        return (colour.blue, colour.green, colour.red)
    }

    /// Writes the bitmap as XBM (the data must start on the line after the brace: libXmu's reader
    /// skips the rest of that line) and sets it as the root background (xsetroot clears the root,
    /// and has finished once it exits, because closing its display waits for the server).
    func paint() async throws {
        var bytes: [String] = []
        for row in bits {
            // XBM: rows of whole bytes, least significant bit = leftmost pixel.
            for byteIndex in 0..<(Self.side / 8) {
                var value = 0
                for bit in 0..<8 where row[byteIndex * 8 + bit] { value |= 1 << bit }
                bytes.append(String(format: "0x%02x", value))
            }
        }
        let xbm = """
            #define zrc_width \(Self.side)
            #define zrc_height \(Self.side)
            static unsigned char zrc_bits[] = {
               \(bytes.joined(separator: ", ")) };

            """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-root-\(getpid()).xbm")
        try xbm.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        func hex(_ c: (red: UInt8, green: UInt8, blue: UInt8)) -> String { String(format: "#%02x%02x%02x", c.red, c.green, c.blue) }
        try await TestDisplay.run("xsetroot", ["-bitmap", file.path, "-fg", hex(foreground), "-bg", hex(background)])
    }
}

/// The kernel's table of System V shared-memory segments (/proc/sysvipc/shm).
enum SharedMemoryTable {
    struct TableUnreadable: Error {}

    /// Permission bits (mode & 0777) of segment `id`, or nil when no such segment exists.
    static func mode(of id: Int32) throws -> Int? {
        // Read to the end: String(contentsOfFile:) stops after the first page of a /proc file,
        // and the table outgrows a page once a few dozen segments exist on the machine.
        guard let file = FileHandle(forReadingAtPath: "/proc/sysvipc/shm") else { throw TableUnreadable() }
        let table = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        for line in table.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            // key shmid perms size …; perms is octal and includes SHM_DEST (01000) once removed.
            guard columns.count > 2, Int32(columns[1]) == id, let perms = Int(columns[2], radix: 8) else { continue }
            return perms & 0o777
        }
        return nil
    }
}
