import PropertyBased
import Testing
import ZRCTestSupport
@testable import ZRCProtocol

@Suite struct ZRCMessageTests {
    @Test func everyMessageRoundTrips() async {
        await propertyCheck(count: 500, input: Generators.message) { message in
            let decoded = try ZRCMessage.decode(message.encode())
            #expect(decoded == message)
        }
    }

    /// Each case on its own, with a fixed seed, so a case the uniform choice rarely hits is covered.
    @Test(arguments: MessageType.allCases)
    func roundTripPerType(type: MessageType) throws {
        var rng = SplitMix64(seed: UInt64(type.rawValue))
        for _ in 0..<50 {
            let message = RandomValues.message(of: type, &rng)
            #expect(message.type == type)
            #expect(try ZRCMessage.decode(message.encode()) == message)
        }
    }

    /// Layouts pinned byte for byte, matching the examples in Schemas/wire-protocol.md.
    static let golden: [(message: ZRCMessage, bytes: [UInt8])] = [
        (.ping(id: 1, sentAtMicros: 0x0102), [0x02, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 2]),
        (.close(reason: .revoked, text: "bye"), [0x04, 0, 4, 0, 3, 0x62, 0x79, 0x65]),
        (.close(reason: .unknown(0x1234), text: ""), [0x04, 0x12, 0x34, 0, 0]),
        (.error(code: .inputRefused, text: ""), [0x05, 0, 1, 0, 0]),
        (.hello(protocolVersion: 1, capabilities: [.jpegRects, .cursorShape], agent: "a"),
         [0x01, 0, 1, 0, 0, 0, 0x09, 0, 1, 0x61]),
        (.input(.key(keysym: 0xFF0D, pressed: true, modifiers: [.shift, .control])),
         [0x20, 0x04, 0, 0, 0xFF, 0x0D, 1, 0, 3]),
        (.input(.button(1, pressed: false, x: -1, y: 2)),
         [0x20, 0x02, 1, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 2]),
        (.input(.scroll(dx: -1, dy: 3, x: 0, y: 0)), [0x20, 0x03, 0xFF, 0xFF, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0]),
        (.cursorPosition(x: 10, y: -10, visible: true, shapeID: 7),
         [0x14, 0, 0, 0, 10, 0xFF, 0xFF, 0xFF, 0xF6, 1, 0, 0, 0, 7]),
        (.frameUpdate(FrameUpdate(
            frameID: 1, captureMicros: 2, encodeDoneMicros: 3, sendMicros: 4, screenWidth: 640, screenHeight: 480,
            quality: 0, rects: [FrameRect(x: 1, y: 2, width: 3, height: 4, content: .solid(pixel: 0x00FF_8000))])),
         [0x11] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 2] + [0, 0, 0, 0, 0, 0, 0, 3] + [0, 0, 0, 0, 0, 0, 0, 4]
            + [0, 0, 0x02, 0x80, 0, 0, 0x01, 0xE0, 0, 0, 1] + [0, 1, 0, 2, 0, 3, 0, 4, 2, 0x00, 0xFF, 0x80, 0x00]),
        (.pictureRequest(PictureRequest(maxWidth: 1280, maxHeight: 720, regionX: 1, regionY: 2, regionWidth: 3, regionHeight: 4)),
         [0x15, 0x05, 0x00, 0x02, 0xD0, 0, 1, 0, 2, 0, 3, 0, 4]),
        (.pictureMapping(PictureMapping(screenWidth: 1920, screenHeight: 1080, regionX: 0, regionY: 0, regionWidth: 1920, regionHeight: 1080,
                                        pictureWidth: 1280, pictureHeight: 720)),
         [0x16, 0, 0, 0x07, 0x80, 0, 0, 0x04, 0x38, 0, 0, 0, 0, 0x07, 0x80, 0x04, 0x38, 0x05, 0x00, 0x02, 0xD0]),
        // A scroll: the whole screen less its top row copied up one row, then the new bottom row.
        (.frameUpdate(FrameUpdate(
            frameID: 1, captureMicros: 2, encodeDoneMicros: 3, sendMicros: 4, screenWidth: 640, screenHeight: 480,
            quality: 0, rects: [FrameRect(x: 0, y: 0, width: 640, height: 479, content: .copy(sourceX: 0, sourceY: 1)),
                                FrameRect(x: 0, y: 479, width: 640, height: 1, content: .lossless([0xAA, 0xBB]))])),
         [0x11] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 2] + [0, 0, 0, 0, 0, 0, 0, 3] + [0, 0, 0, 0, 0, 0, 0, 4]
            + [0, 0, 0x02, 0x80, 0, 0, 0x01, 0xE0, 0, 0, 2] + [0, 0, 0, 0, 0x02, 0x80, 0x01, 0xDF, 5, 0, 0, 0, 1]
            + [0, 0, 0x01, 0xDF, 0x02, 0x80, 0, 1, 4, 0, 0, 0, 2, 0xAA, 0xBB]),
        // wire-protocol.md §6's example of relayCredentials.
        (.relayCredentials([RelayCredential(relay: "198.51.100.7:3478", username: "1:zrc", password: "p", expiresAt: 1)]),
         [0x06, 0x01, 0x11] + Array("198.51.100.7:3478".utf8) + [0x05] + Array("1:zrc".utf8) + [0x01, 0x70, 0, 0, 0, 0, 0, 0, 0, 1]),
    ]

    @Test(arguments: golden)
    func goldenBytes(message: ZRCMessage, bytes: [UInt8]) throws {
        #expect(message.encode() == bytes)
        #expect(try ZRCMessage.decode(bytes) == message)
    }

    @Test func closeReasonsKeepUnknownValues() {
        #expect(CloseReason(rawValue: 4) == .revoked)
        #expect(CloseReason(rawValue: 999) == .unknown(999))
        #expect(CloseReason.unknown(0) == .normal)
        #expect(CloseReason(rawValue: 999).rawValue == 999)
    }

    /// Every proper prefix of a valid encoding is reported as truncated (all prefixes of messages up
    /// to 4 KiB; the first 4 KiB of prefixes plus 300 random cut points for larger ones, to stay fast).
    @Test func everyTruncationFails() async {
        await propertyCheck(count: 200, input: Generators.message, Generators.seed) { message, seed in
            let bytes = message.encode()
            var rng = SplitMix64(seed: seed)
            let cuts = Array(0..<min(bytes.count, 4096)) + (0..<(bytes.count > 4096 ? 300 : 0)).map { _ in
                Int.random(in: 0..<bytes.count, using: &rng)
            }
            for count in cuts {
                #expect(errorKind { () throws(WireError) in try ZRCMessage.decode(bytes.prefix(count)) } == .truncated)
            }
        }
    }

    @Test func trailingBytesFail() async {
        await propertyCheck(count: 100, input: Generators.message, Gen.uint8()) { message, extra in
            #expect(errorKind { () throws(WireError) in try ZRCMessage.decode(message.encode() + [extra]) } == .trailingBytes)
        }
    }

    /// Corrupted encodings: an error, or a message whose encoding is exactly the input (the format
    /// has one encoding per value, so nothing is silently reinterpreted).
    @Test func corruptedBytesFailOrAreCanonical() async {
        await propertyCheck(count: 500, input: Generators.message, Generators.seed) { message, seed in
            var rng = SplitMix64(seed: seed)
            var bytes = message.encode()
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            if let decoded = try? ZRCMessage.decode(bytes) { #expect(decoded.encode() == bytes) }
        }
    }

    @Test func garbageNeverCrashes() async {
        await propertyCheck(count: 1000, input: Generators.bytes) { bytes in
            if let decoded = try? ZRCMessage.decode(bytes) { #expect(decoded.encode() == bytes) }
        }
    }

    @Test func textEventsSplitAtCharacterBoundaries() {
        let text = String(repeating: "ab€", count: 1000) + "👍🏽"  // 5000 + 8 bytes
        let events = InputEvent.textEvents(for: text)
        var joined = ""
        for event in events {
            guard case .text(let piece) = event else { Issue.record("not text: \(event)"); continue }
            #expect(piece.utf8.count <= WireLimits.maxStringBytes)
            joined += piece
        }
        #expect(joined == text)
        #expect(events.count == 2)
    }

    @Test func encodingAnInvalidMessageIsAProgrammingError() async {
        await #expect(processExitsWith: .failure) {
            _ = ZRCMessage.input(.button(10, pressed: true, x: 0, y: 0)).encode()
        }
    }
}
