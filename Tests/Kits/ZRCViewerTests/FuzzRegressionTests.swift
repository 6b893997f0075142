import Foundation
import Testing
import ZRCViewer

/// Inputs of the `terminal-input` fuzz target (Tools/fuzz.sh, Fuzz/Targets/terminal-input.swift),
/// replayed as the harness feeds them: the first byte configures the run (bits 0–4 chunk size,
/// 0 for one feed; bit 5 a flush after each chunk; bit 6 pixel mouse reports; bit 7 key releases
/// reported), the rest goes through the parser and the input mapper. Every case must only not
/// crash. A new crash goes in as `base64 -w0 .build/fuzz/crashes/terminal-input/crash-…`.
@Suite struct TerminalInputFuzzRegressionTests {
    static let cases: [String] = [
        // Crashes found by fuzzing.
        // A kitty key code above UInt32.max, `CSI 9666666666 u`: `UInt32(code)` trapped in
        // TerminalInputParser.kittyKey (minimized by libFuzzer; config 0x80).
        "gBtbOTY2NjY2NjY2NnU=",
        // The same at the first code that does not fit, `CSI 4294967296 u` (2^32).
        "ABtbNDI5NDk2NzI5NnU=",
        // Seeds (Fuzz/Seeds/terminal-input):
        "IB0rHS0dG1tEHRtbQR0wHT8dHR1x",  // chord
        "gBtbOTc7MToxdRtbOTc7MToydRtbOTc7MTozdRtbMTN1G1s1NzM5OXUbWzE7NTozRA==",  // kitty-keys
        "AGFiG1sxOzVD4pyTG1s8MDsxMDsyME0bWzwwOzEwOzIwbRtbMjAwfnBhG3N0ZRtbMjAxfhtbOTc7NXUbT1DDqQ0=",  // mixed
        "JXgbG1tBG1szfhtbMTU7Mn4bW1obYX8D",  // mixed-chunked
        "QBtbPDA7MTAwOzUwTRtbPDMyOzEyMDs2ME0bWzwwOzEzMDs3MG0bWzw2NDsxMDsxME0bWzw2NzsxMDsxME0bWzwzNTsxOzFN",  // mouse-pixels
        "ABtbPzYyOzQ7MjJjG1s2OzIwOzEwdBtbNDs5MDA7MTYwMHQbWz8yMDI2OzIkeRtbPzE1dRtfR2k9MzE7T0sbXBtQPnxraXR0eSgwLjI2LjUpG1wbW0kbW08=",  // replies
    ]

    /// Must only not crash.
    @Test(arguments: cases)
    func replay(base64: String) throws {
        let input = [UInt8](try #require(Data(base64Encoded: base64)))
        guard let config = input.first else { return }
        var parser = TerminalInputParser()
        var mapper = ViewerInputMapper(
            viewport: Viewport(remoteWidth: 1920, remoteHeight: 1080, areaWidth: 800, areaHeight: 450), cellWidth: 10, cellHeight: 20)
        mapper.reportsPixels = config & 0x40 != 0
        mapper.reportsKeyReleases = config & 0x80 != 0
        let bytes = input.dropFirst()
        let chunkSize = config & 0x1F == 0 ? max(bytes.count, 1) : Int(config & 0x1F)
        for start in stride(from: bytes.startIndex, to: bytes.endIndex, by: chunkSize) {
            var events = parser.feed(bytes[start..<min(start + chunkSize, bytes.endIndex)])
            if config & 0x20 != 0 { events += parser.flushPendingEscape() }
            for event in events { _ = mapper.handle(event) }
        }
        for event in parser.flushPendingEscape() { _ = mapper.handle(event) }
    }
}
