import PropertyBased
import Testing
import ZRCProtocol
import ZRCWebViewer

/// The page's messages: every kind survives encoding, and bytes a hostile page might send give a
/// clear error, never a crash or an allocation past the limits.
@Suite struct PageMessageTests {
    static let examples: [PageMessage] = [
        .view(width: 1280, height: 720, regionX: 0, regionY: 0, regionWidth: 1920, regionHeight: 1080),
        .drawn(version: 4_000_000_000),
        .pointer(action: .move, button: 0, x: 1919, y: 1079),
        .pointer(action: .press, button: 9, x: 3, y: 4),
        .pointer(action: .release, button: 1, x: 0, y: 0),
        .wheel(dx: -2, dy: 3, x: 10, y: 20),
        .key(pressed: true, key: "€", code: "KeyE", modifiers: [.altGr]),
        .key(pressed: false, key: "ArrowLeft", code: "ArrowLeft", modifiers: [.shift, .control]),
        .text("日本語"),
        .clipboard("line one\nline two"),
        .command(.ctrlAltDelete),
        .files(.list(tag: 1, path: "Documents/Ünïcode")),
        .files(.upload(tag: 2, replace: true, size: 1 << 44, modifiedMillis: -5, path: "folder/a.txt")),
        .files(.download(tag: 3, path: "a.txt")),
        .files(.cancel(tag: UInt32.max)),
    ]

    @Test(arguments: examples)
    func everyKindSurvivesEncoding(message: PageMessage) throws {
        #expect(try PageMessage.decode(message.encoded) == message)
    }

    @Test func randomMessagesSurviveEncoding() async {
        let text = Gen.uint32(in: 0x20...0x2FFF).compactMap { Unicode.Scalar($0) }.array(of: 0...30).map { String(String.UnicodeScalarView($0)) }
        await propertyCheck(count: 300, input: Gen.uint16(), Gen.uint16(), Gen.int16(), text) { x, y, delta, text in
            for message: PageMessage in [.pointer(action: .move, button: 0, x: x, y: y), .wheel(dx: delta, dy: delta, x: x, y: y),
                                         .text(text), .key(pressed: true, key: String(text.prefix(8)), code: "KeyQ", modifiers: [])] {
                #expect((try? PageMessage.decode(message.encoded)) == message)
            }
        }
    }

    @Test func arbitraryBytesNeverCrash() async {
        await propertyCheck(count: 2000, input: Gen.uint8().array(of: 0...40)) { bytes in
            _ = try? PageMessage.decode(bytes)
        }
    }

    @Test(arguments: [
        ([], "empty"),
        ([0x42], "unknown type"),
        ([0x83, 0x01, 0x0A, 0, 1, 0, 1], "button 10"),
        ([0x83, 0x01, 0x00, 0, 1, 0, 1], "button 0 pressed"),
        ([0x83, 0x07, 0x01, 0, 1, 0, 1], "unknown pointer action"),
        ([0x82, 0, 0, 0], "short version"),
        ([0x82, 0, 0, 0, 1, 9], "a byte too many"),
        ([0x86, 0xFF, 0xFE], "text that is not UTF-8"),
        ([0x88, 0x63], "unknown command"),
        ([0x85, 1, 0, 0, 0xFF, 0xFF], "a key name announced at 65535 bytes"),
    ] as [([UInt8], String)])
    func malformedMessagesAreRefused(bytes: [UInt8], why: String) {
        #expect(throws: WireError.self, "\(why)") { try PageMessage.decode(bytes) }
    }

    @Test func sizesAreCheckedBeforeUse() {
        let paste = [0x87] + [UInt8](repeating: 0x61, count: PageMessage.maximumBytes)
        #expect(throws: WireError.self) { try PageMessage.decode(paste) }
        let composition = [0x86] + [UInt8](repeating: 0x61, count: PageMessage.maximumTextBytes + 1)
        #expect(throws: WireError.self) { try PageMessage.decode(composition) }
        let largestPaste = [0x87] + [UInt8](repeating: 0x61, count: WireLimits.maxClipboardBytes)
        #expect((try? PageMessage.decode(largestPaste)) == .clipboard(String(repeating: "a", count: WireLimits.maxClipboardBytes)))
    }
}
