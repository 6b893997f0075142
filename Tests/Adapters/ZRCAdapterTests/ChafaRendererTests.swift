import Foundation
import Testing
import ZRCChafa

@Suite("Terminal image rendering with libchafa")
struct ChafaRendererTests {
    /// 64×32 pixels: the left half pure red, the right half pure blue, in the given layout. For
    /// BGRX the padding byte is 0, as X servers often leave it, which must not read as transparent.
    static func twoColourImage(_ format: TerminalPixelFormat) -> [UInt8] {
        var pixels: [UInt8] = []
        for _ in 0..<32 {
            for x in 0..<64 {
                let red = x < 32
                switch format {
                case .bgrx: pixels += red ? [0, 0, 255, 0] : [255, 0, 0, 0]
                case .rgba: pixels += red ? [255, 0, 0, 255] : [0, 0, 255, 255]
                }
            }
        }
        return pixels
    }

    static func matches(_ text: String, _ pattern: String) -> Bool {
        text.range(of: pattern, options: .regularExpression) != nil
    }

    struct SymbolCase: Sendable, CustomTestStringConvertible {
        let symbols: TerminalSymbols
        let format: TerminalPixelFormat
        var testDescription: String { "\(symbols), \(format)" }
    }

    @Test(arguments: [
        SymbolCase(symbols: .halfBlocks, format: .bgrx), SymbolCase(symbols: .halfBlocks, format: .rgba),
        SymbolCase(symbols: .blocks, format: .bgrx), SymbolCase(symbols: .blocks, format: .rgba),
    ])
    func symbolsUseTruecolourSequences(_ test: SymbolCase) throws {
        let renderer = try TerminalImageRenderer(columns: 8, rows: 4, mode: .symbols(test.symbols))
        let output = try renderer.render(pixels: Self.twoColourImage(test.format), width: 64, height: 32, bytesPerRow: 256,
                                         format: test.format)
        // SGR 38;2;R;G;B (foreground) or 48;2;R;G;B (background), possibly combined in one sequence.
        #expect(Self.matches(output, "\u{1B}\\[([0-9;]*;)?[34]8;2;255;0;0[;m]"), "no truecolour red in \(output.debugDescription)")
        #expect(Self.matches(output, "\u{1B}\\[([0-9;]*;)?[34]8;2;0;0;255[;m]"), "no truecolour blue in \(output.debugDescription)")
        #expect(!output.contains("\u{1B}P"), "symbol output must not contain a DCS sequence")
        #expect(output.split(separator: "\n", omittingEmptySubsequences: true).count == 4)
        // Rendering again reuses the canvas and gives the same text.
        let again = try renderer.render(pixels: Self.twoColourImage(test.format), width: 64, height: 32, bytesPerRow: 256,
                                        format: test.format)
        #expect(again == output)
    }

    @Test(arguments: [TerminalPixelFormat.bgrx, .rgba])
    func sixelStartsWithTheSixelIntroducer(_ format: TerminalPixelFormat) throws {
        let renderer = try TerminalImageRenderer(columns: 8, rows: 4, mode: .sixel, cellWidth: 8, cellHeight: 16)
        let output = try renderer.render(pixels: Self.twoColourImage(format), width: 64, height: 32, bytesPerRow: 256,
                                         format: format)
        // DCS (ESC P), optional numeric parameters, then the sixel final character q; ended by ST.
        #expect(Self.matches(output, "^\u{1B}P[0-9;]*q"), "not a sixel image: \(output.prefix(40).debugDescription)")
        #expect(output.hasSuffix("\u{1B}\\"))
        // Colour registers in sixel are percentages: pure red 100;0;0 and pure blue 0;0;100.
        #expect(output.contains(";2;100;0;0") && output.contains(";2;0;0;100"))
    }

    @Test func strideBytesAreIgnored() throws {
        // A stride wider than the row: the bytes between rows (0x77) must not show up as colour.
        var pixels: [UInt8] = []
        let image = Self.twoColourImage(.bgrx)
        for row in 0..<32 { pixels += image[(row * 256)..<(row * 256 + 256)] + [UInt8](repeating: 0x77, count: 16) }
        let renderer = try TerminalImageRenderer(columns: 8, rows: 4, mode: .symbols(.halfBlocks))
        let padded = try renderer.render(pixels: pixels, width: 64, height: 32, bytesPerRow: 272, format: .bgrx)
        let packed = try renderer.render(pixels: image, width: 64, height: 32, bytesPerRow: 256, format: .bgrx)
        #expect(padded == packed)
    }

    @Test func refusesBadGeometry() throws {
        #expect(throws: ChafaError.self) { try TerminalImageRenderer(columns: 0, rows: 4, mode: .sixel) }
        #expect(throws: ChafaError.self) { try TerminalImageRenderer(columns: 4, rows: 5000, mode: .sixel) }
        #expect(throws: ChafaError.self) { try TerminalImageRenderer(columns: 4, rows: 4, mode: .sixel, cellWidth: 0) }
        let renderer = try TerminalImageRenderer(columns: 4, rows: 2, mode: .symbols(.blocks))
        let error = #expect(throws: ChafaError.self) {
            try renderer.render(pixels: [UInt8](repeating: 0, count: 100), width: 8, height: 8, bytesPerRow: 32, format: .rgba)
        }
        #expect(error?.kind == .invalidArgument)
        #expect(throws: ChafaError.self) {
            try renderer.render(pixels: [UInt8](repeating: 0, count: 1000), width: 8, height: 8, bytesPerRow: 16, format: .bgrx)
        }
    }
}
