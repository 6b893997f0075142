import Testing
import ZRCProtocol

/// `monitorLayout`: round trip, and the limits a hostile host cannot get past.
@Suite struct MonitorLayoutTests {
    static let two = [MonitorArea(x: 0, y: 0, width: 1920, height: 1080, isPrimary: true, name: "HDMI-1"),
                      MonitorArea(x: 1920, y: 0, width: 1280, height: 1024, isPrimary: false, name: "DP-2")]

    @Test func aLayoutSurvivesEncoding() throws {
        let message = ZRCMessage.monitorLayout(Self.two)
        #expect(try ZRCMessage.decode(message.encode()) == message)
        // type, count, then x y w h flags name per monitor.
        #expect(message.encode().prefix(12) == [0x17, 2, 0, 0, 0, 0, 0x07, 0x80, 0x04, 0x38, 1, 6])
    }

    @Test(arguments: [
        ([0x17, 0], "no monitor"),
        ([0x17, 17] + [UInt8](repeating: 0, count: 17 * 10), "seventeen"),
        ([0x17, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0], "an empty monitor"),
        ([0x17, 1, 0, 0, 0, 0, 0, 1, 0, 1, 2, 0], "unknown flags"),
        ([0x17, 1, 0xFF, 0xFF, 0, 0, 0, 2, 0, 1, 0, 0], "past 65535"),
        ([0x17, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 5, 0x61], "a name longer than its bytes"),
    ] as [([UInt8], String)])
    func malformedLayoutsAreRefused(bytes: [UInt8], why: String) {
        #expect(throws: WireError.self, "\(why)") { try ZRCMessage.decode(bytes) }
    }
}
