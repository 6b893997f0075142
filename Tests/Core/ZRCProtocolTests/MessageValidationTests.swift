import Testing
@testable import ZRCProtocol

/// One test per forbidden field value: each must be rejected with a precise kind.
@Suite struct MessageValidationTests {
    static let header: [UInt8] = [0x11] + [UInt8](repeating: 0, count: 32)  // frameUpdate, zero timestamps

    /// frameUpdate on a 100x50 screen, quality 50, then the given rect bytes.
    static func frame(rectCount: UInt16 = 1, _ rects: [UInt8], width: UInt32 = 100, height: UInt32 = 50, quality: UInt8 = 50)
        -> [UInt8]
    {
        header + be32(width) + be32(height) + [quality, UInt8(rectCount >> 8), UInt8(rectCount & 0xFF)] + rects
    }

    static let solid: [UInt8] = [2, 0, 0, 0, 0]

    static let cases: [(name: String, bytes: [UInt8], kind: WireError.Kind)] = [
        ("empty message", [], .truncated),
        ("unknown type 0x00", [0x00], .unknownMessageType),
        ("unknown type 0x07", [0x07, 0, 0], .unknownMessageType),
        ("relay credentials: five relays", [0x06, 5], .invalidValue),
        ("relay credentials: empty password", [0x06, 1, 3] + Array("a:1".utf8) + [1, 0x75, 0] + [UInt8](repeating: 0, count: 8), .invalidValue),
        ("unknown type 0xFF", [0xFF], .unknownMessageType),
        ("rect past right edge", frame([0, 99, 0, 0, 0, 2, 0, 1] + solid), .invalidValue),
        ("rect past bottom edge", frame([0, 0, 0, 49, 0, 1, 0, 2] + solid), .invalidValue),
        ("rect at 65535 wraps nothing", frame([0xFF, 0xFF, 0, 0, 0, 1, 0, 1] + solid), .invalidValue),
        ("empty rect", frame([0, 0, 0, 0, 0, 0, 0, 1] + solid), .invalidValue),
        ("unknown rect encoding", frame([0, 0, 0, 0, 0, 1, 0, 1, 8, 0, 0, 0, 0]), .invalidValue),
        ("empty lossless restart", frame([0, 0, 0, 0, 0, 1, 0, 1, 7, 0, 0, 0, 0]), .invalidValue),
        ("lossless restart length beyond bytes", frame([0, 0, 0, 0, 0, 1, 0, 1, 7, 0, 0, 0, 9, 1]), .truncated),
        ("empty lossless chunk", frame([0, 0, 0, 0, 0, 1, 0, 1, 4, 0, 0, 0, 0]), .invalidValue),
        ("empty lossless frame", frame([0, 0, 0, 0, 0, 1, 0, 1, 6, 0, 0, 0, 0]), .invalidValue),
        ("lossless frame length beyond bytes", frame([0, 0, 0, 0, 0, 1, 0, 1, 6, 0, 0, 0, 9, 1]), .truncated),
        ("lossless length beyond bytes", frame([0, 0, 0, 0, 0, 1, 0, 1, 4, 0, 0, 0, 9, 1]), .truncated),
        ("copy from past the right edge", frame([0, 0, 0, 0, 0, 10, 0, 1, 5, 0, 91, 0, 0]), .invalidValue),
        ("copy from past the bottom edge", frame([0, 0, 0, 0, 0, 1, 0, 10, 5, 0, 0, 0, 41]), .invalidValue),
        ("copy rects move more than the screen",
         frame(rectCount: 2, [0, 0, 0, 0, 0, 100, 0, 50, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100, 0, 50, 5, 0, 0, 0, 0]), .invalidValue),
        ("empty jpeg", frame([0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0]), .invalidValue),
        ("jpeg length 0xFFFFFFFF", frame([0, 0, 0, 0, 0, 1, 0, 1, 1, 0xFF, 0xFF, 0xFF, 0xFF, 1]), .truncated),
        ("raw length mismatch", frame([0, 0, 0, 0, 0, 1, 0, 1, 3, 0, 0, 0, 3, 1, 2, 3]), .invalidValue),
        ("raw length 0xFFFFFFFF", frame([0, 0, 0, 0, 0, 1, 0, 1, 3, 0xFF, 0xFF, 0xFF, 0xFF]), .invalidValue),
        ("rect count beyond bytes", frame(rectCount: 0xFFFF, [0, 0, 0, 0, 0, 1, 0, 1] + solid), .truncated),
        ("quality 101", frame([0, 0, 0, 0, 0, 1, 0, 1] + solid, quality: 101), .invalidValue),
        ("screen width 0", frame(rectCount: 0, [], width: 0), .invalidValue),
        ("screen height 65536", frame(rectCount: 0, [], height: 65536), .invalidValue),
        // The 46-byte update that once made a controller zero-fill 17 GB.
        ("screen 65535x65535", frame(rectCount: 0, [], width: 65535, height: 65535), .invalidValue),
        ("screen side 16385", frame(rectCount: 0, [], width: 16385, height: 1), .invalidValue),
        ("screen 16384x16384 (over the pixel cap)", frame(rectCount: 0, [], width: 16384, height: 16384), .invalidValue),
        // Two rects on the same 100x50 area: twice the screen's pixels in one update.
        ("rects cover more than the screen", frame(rectCount: 2, [0, 0, 0, 0, 0, 100, 0, 50] + solid + [0, 0, 0, 0, 0, 100, 0, 50] + solid),
         .invalidValue),
        ("picture request with one zero side", [0x15, 0, 0, 0, 10] + [UInt8](repeating: 0, count: 8), .invalidValue),
        ("picture request with a half-empty region", [0x15, 0, 1, 0, 1, 0, 0, 0, 0, 0, 5, 0, 0], .invalidValue),
        ("whole-screen picture request not at 0,0", [0x15, 0, 1, 0, 1, 0, 3, 0, 0, 0, 0, 0, 0], .invalidValue),
        ("picture mapping with an empty picture",
         [0x16] + be32(100) + be32(50) + [0, 0, 0, 0, 0, 100, 0, 50, 0, 0, 0, 50], .invalidValue),
        ("picture mapping larger than its region",
         [0x16] + be32(100) + be32(50) + [0, 0, 0, 0, 0, 10, 0, 10, 0, 11, 0, 10], .invalidValue),
        ("picture mapping region beyond the screen",
         [0x16] + be32(100) + be32(50) + [0, 95, 0, 0, 0, 10, 0, 10, 0, 5, 0, 5], .invalidValue),
        ("picture mapping of a screen over the limit",
         [0x16] + be32(65535) + be32(65535) + [0, 0, 0, 0, 0, 10, 0, 10, 0, 5, 0, 5], .invalidValue),
        ("reserved type 0x10 (was screenInfo)", [0x10, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0], .unknownMessageType),
        ("cursor 257 wide", [0x13, 0, 0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF], .invalidValue),
        ("cursor 0 high", [0x13, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], .invalidValue),
        ("cursor pixels short", [0x13, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3], .invalidValue),
        ("cursor hot spot outside", [0x13, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4, 1, 2, 3, 4], .invalidValue),
        ("button 0", [0x20, 0x02, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0], .invalidValue),
        ("button 10", [0x20, 0x02, 10, 1, 0, 0, 0, 0, 0, 0, 0, 0], .invalidValue),
        ("pressed = 2", [0x20, 0x02, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0], .invalidValue),
        ("unknown input event", [0x20, 0x06], .unknownMessageType),
        ("visible = 0xFF", [0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0, 0, 0, 0], .invalidValue),
        ("stats quality 200", [0x30] + [UInt8](repeating: 0, count: 20) + [200], .invalidValue),
        ("string over 4096", [0x08, 0x10, 0x01] + [UInt8](repeating: 0x61, count: 4097), .lengthTooLarge),
        ("string length beyond bytes", [0x08, 0x00, 0x05, 0x61], .truncated),
        ("invalid UTF-8 name", [0x09, 0x00, 0x02, 0xC0, 0xAF], .invalidUTF8),
        ("ping with extra byte", [0x02] + [UInt8](repeating: 0, count: 17), .trailingBytes),
        // Clipboard: the announced length is checked against 1 MiB before anything is copied.
        ("clipboard over 1 MiB", [0x40, 0, 0] + be32(UInt32(WireLimits.maxClipboardBytes + 1)) + [0x61], .lengthTooLarge),
        ("clipboard length 0xFFFFFFFF", [0x40, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF], .lengthTooLarge),
        ("clipboard length beyond bytes", [0x40, 0, 0] + be32(5) + [0x61], .truncated),
        ("clipboard selection 2", [0x40, 2, 0] + be32(0), .invalidValue),
        ("clipboard mime type not UTF-8", [0x40, 0, 1, 0xFF] + be32(0), .invalidUTF8),
        ("clipboard request for selection 9", [0x41, 9], .invalidValue),
        ("clipboard request with extra byte", [0x41, 0, 0], .trailingBytes),
    ]

    @Test(arguments: cases)
    func rejects(name: String, bytes: [UInt8], kind: WireError.Kind) {
        let error = wireError { () throws(WireError) in try ZRCMessage.decode(bytes) }
        #expect(error?.kind == kind, "\(name): \(error?.message ?? "decoded")")
    }

    @Test(arguments: [(16384, 2048), (7680, 4320), (1, 16384), (2, 1)])
    func screensWithinTheCapsAreAccepted(width: UInt32, height: UInt32) throws {
        let message = try ZRCMessage.decode(Self.frame(rectCount: 0, [], width: width, height: height))
        #expect(message.type == .frameUpdate)
    }

    @Test func messagesSayWhereTheProblemIs() {
        let error = wireError { () throws(WireError) in
            try ZRCMessage.decode(Self.frame([0, 99, 0, 0, 0, 2, 0, 1] + Self.solid))
        }
        #expect(error?.message == "frameUpdate message: rects[0] (2x1 at 99,0) extends beyond the 100x50 screen")
    }

    /// The limit itself is accepted, and bytes that are not UTF-8 pass the wire: refusing them is
    /// the receiver's call (a notice, the session goes on).
    @Test func clipboardAtTheLimitAndNotUTF8Decodes() throws {
        let full = ZRCMessage.clipboard(ClipboardContent(selection: .primary, mimeType: ClipboardContent.utf8Text,
                                                         data: [UInt8](repeating: 0x61, count: WireLimits.maxClipboardBytes)))
        #expect(try ZRCMessage.decode(full.encode()) == full)
        let latin1 = ZRCMessage.clipboard(ClipboardContent(selection: .clipboard, mimeType: ClipboardContent.utf8Text, data: [0x63, 0xE9]))
        guard case .clipboard(let content) = try ZRCMessage.decode(latin1.encode()) else { Issue.record("not clipboard"); return }
        #expect(content.text == nil && content.data == [0x63, 0xE9])
        #expect(WireLimits.maxControllerMessageLength >= full.encode().count, "a controller can send a full clipboard")
    }

    /// The example in Schemas/wire-protocol.md, byte for byte.
    @Test func theSpecsClipboardExample() throws {
        let bytes: [UInt8] = [0x40, 0x00, 0x18] + Array("text/plain;charset=utf-8".utf8) + [0, 0, 0, 2, 0x68, 0x69]
        #expect(try ZRCMessage.decode(bytes) == .clipboard(.text("hi")))
        #expect(ZRCMessage.clipboard(.text("hi")).encode() == bytes)
        #expect(ZRCMessage.clipboardRequest(.primary).encode() == [0x41, 0x01])
    }

    @Test func rectTouchingTheEdgesIsValid() throws {
        let bytes = Self.frame([0, 98, 0, 49, 0, 2, 0, 1] + Self.solid)
        guard case .frameUpdate(let update) = try ZRCMessage.decode(bytes) else { Issue.record("not a frame"); return }
        #expect(update.rects.first?.x == 98)
    }
}
