import Foundation
import Synchronization
import Testing
import ZRCFrames
import ZRCViewer
import ZRCProtocol

/// The kitty graphics protocol output, checked command by command.
@Suite struct KittyRendererTests {
    /// One `ESC _ G keys ; payload ESC \` command.
    struct Command {
        let keys: [String: String]
        let payload: String
    }

    static func commands(_ output: [UInt8]) -> (commands: [Command], other: String) {
        var text = String(decoding: output, as: UTF8.self)
        var commands: [Command] = []
        var other = ""
        while let start = text.range(of: "\u{1B}_G") {
            other += text[..<start.lowerBound]
            guard let end = text.range(of: "\u{1B}\\", range: start.upperBound..<text.endIndex) else { break }
            let body = text[start.upperBound..<end.lowerBound]
            let parts = body.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
            let keys = Dictionary(parts[0].split(separator: ",").map { pair in
                let kv = pair.split(separator: "=", maxSplits: 1)
                return (String(kv[0]), kv.count > 1 ? String(kv[1]) : "")
            }, uniquingKeysWith: { _, last in last })
            commands.append(Command(keys: keys, payload: parts.count > 1 ? String(parts[1]) : ""))
            text = String(text[end.upperBound...])
        }
        return (commands, other + text)
    }

    static let area = TerminalArea(column: 0, row: 0, columns: 8, rows: 4, cellWidth: 10, cellHeight: 20)

    static func image(seed: UInt64 = 7) -> PixelBuffer { FrameScalerTests.noise(width: 80, height: 80, seed: seed) }

    static func rgb(_ image: PixelBuffer, _ rect: PixelRect) -> [UInt8] {
        var bytes: [UInt8] = []
        for y in rect.y..<rect.maxY {
            for x in rect.x..<rect.maxX {
                let pixel = image.pixel(x: x, y: y)
                bytes += [UInt8(pixel >> 16), UInt8(pixel >> 8 & 0xFF), UInt8(pixel & 0xFF)]
            }
        }
        return bytes
    }

    @Test func theFirstFrameIsOneImageSentInChunksOfBase64() throws {
        var renderer = KittyRenderer(partialUpdates: true, sharedMemory: nil)
        let image = Self.image()
        let (commands, other) = Self.commands(try renderer.draw(image, changed: nil, in: Self.area))
        #expect(other == "\u{1B}[1;1H", "the cursor goes to the area's top-left first")
        let first = try #require(commands.first)
        #expect(first.keys["a"] == "T" && first.keys["f"] == "24" && first.keys["s"] == "80" && first.keys["v"] == "80")
        #expect(first.keys["c"] == "8" && first.keys["r"] == "4" && first.keys["C"] == "1" && first.keys["q"] == "2")
        #expect(first.keys["z"] == "-1", "under text, so the help box shows over it")
        let base64Length = 80 * 80 * 3 * 4 / 3
        #expect(commands.count == (base64Length + 4095) / 4096, "4096 base64 characters per chunk")
        #expect(commands.allSatisfy { $0.payload.count <= 4096 })
        #expect(commands.dropLast().allSatisfy { $0.keys["m"] == "1" } && commands.last?.keys["m"] == "0")
        let data = try #require(Data(base64Encoded: commands.map(\.payload).joined()))
        #expect([UInt8](data) == Self.rgb(image, image.bounds))
    }

    @Test func kittyGetsOnlyTheChangedRectanglesEditedInPlace() throws {
        var renderer = KittyRenderer(partialUpdates: true, sharedMemory: nil)
        _ = try renderer.draw(Self.image(), changed: nil, in: Self.area)
        let next = Self.image(seed: 8)
        let rect = PixelRect(x: 10, y: 20, width: 5, height: 3)
        let (commands, other) = Self.commands(try renderer.draw(next, changed: [rect], in: Self.area))
        #expect(other.isEmpty)
        #expect(commands.count == 2)
        let edit = commands[0].keys
        #expect(edit["a"] == "f" && edit["r"] == "1" && edit["x"] == "10" && edit["y"] == "20" && edit["s"] == "5" && edit["v"] == "3")
        #expect([UInt8](Data(base64Encoded: commands[0].payload) ?? Data()) == Self.rgb(next, rect))
        #expect(commands[1].keys["a"] == "a" && commands[1].keys["c"] == "1", "the edited frame is shown")

        let most = try renderer.draw(next, changed: [PixelRect(x: 0, y: 0, width: 80, height: 60)], in: Self.area)
        #expect(Self.commands(most).commands.first?.keys["s"] == "80", "mostly changed: one whole-image edit")
    }

    @Test func otherTerminalsGetTheWholeImageAgain() throws {
        var renderer = KittyRenderer(partialUpdates: false, sharedMemory: nil)
        _ = try renderer.draw(Self.image(), changed: nil, in: Self.area)
        let (commands, _) = Self.commands(try renderer.draw(Self.image(seed: 9), changed: [PixelRect(x: 0, y: 0, width: 2, height: 2)],
                                                            in: Self.area))
        #expect(commands.first?.keys["a"] == "d" && commands.first?.keys["d"] == "I", "the old image goes first")
        #expect(commands.dropFirst().first?.keys["a"] == "T")
        #expect(Self.commands(renderer.clear()).commands.first?.keys["a"] == "d")
    }

    final class Recorder: KittySharedMemoryWriter, Sendable {
        let written = Mutex<[[UInt8]]>([])
        func write(_ bytes: [UInt8]) throws -> String {
            written.withLock { $0.append(bytes) }
            return "/zrc-test-\(written.withLock { $0.count })"
        }
    }

    @Test func sharedMemoryCarriesThePixelsAndTheCommandOnlyTheName() throws {
        let recorder = Recorder()
        var renderer = KittyRenderer(partialUpdates: true, sharedMemory: recorder)
        #expect(renderer.name == "kitty (shm)")
        let image = Self.image()
        let (commands, _) = Self.commands(try renderer.draw(image, changed: nil, in: Self.area))
        #expect(commands.count == 1)
        #expect(commands[0].keys["t"] == "s" && commands[0].keys["S"] == String(80 * 80 * 3))
        #expect(String(decoding: Data(base64Encoded: commands[0].payload) ?? Data(), as: UTF8.self) == "/zrc-test-1")
        #expect(recorder.written.withLock { $0 } == [Self.rgb(image, image.bounds)])
    }
}
