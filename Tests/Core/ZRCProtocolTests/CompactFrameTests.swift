import PropertyBased
import Testing
import ZRCTestSupport
@testable import ZRCProtocol

/// `compactFrame` (0x18): varints, the context both sides keep, and the spec's worked example.
@Suite struct CompactFrameTests {
    @Test func varintsRoundTripAndAreMinimal() async {
        await propertyCheck(count: 500, input: Gen.uint64()) { value in
            var writer = ByteWriter()
            writer.write(varint: value)
            var reader = ByteReader(writer.bytes, context: "test")
            let read = try reader.readVarint("v")
            #expect(read == value)
            #expect(reader.isAtEnd)
            // Minimal: every byte but the last carries the continuation bit, and the last is not a
            // zero after the first.
            #expect(writer.bytes.count == max(1, (64 - value.leadingZeroBitCount + 6) / 7))
        }
    }

    /// Encodings a decoder must refuse: longer than the value needs, beyond 64 bits, cut short, over the maximum.
    static let badVarints: [([UInt8], UInt64)] = [
        ([0x80, 0x00], .max),  // 0 in two bytes
        ([0xFF, 0x00], .max),  // 127 in two bytes
        ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02], .max),  // 2^64 + …
        ([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], .max),  // eleven bytes
        ([0x80], .max),  // truncated
        ([0xAC, 0x02], 299),  // 300 > 299
    ]

    @Test(arguments: badVarints)
    func badVarintsAreRefused(bytes: [UInt8], maximum: UInt64) {
        var reader = ByteReader(bytes, context: "test")
        #expect(wireError { () throws(WireError) in try reader.readVarint("v", maximum: maximum) } != nil)
    }

    /// Schemas/wire-protocol.md's example: one keystroke's update in a terminal.
    static let keystrokeBytes: [UInt8] = [0x18, 0x00, 0xF2, 0xE7, 0x03, 0x32, 0x90, 0x03, 0x00, 0x01,
                                          0x64, 0xC8, 0x01, 0x07, 0x0D, 0x04, 0x0C] + Array(0xC0...0xCB)

    static func previous() -> FrameUpdate {
        FrameUpdate(frameID: 41, captureMicros: 990_000, encodeDoneMicros: 995_000, sendMicros: 1_000_000, screenWidth: 1920,
                    screenHeight: 1080, quality: 0, rects: [])
    }

    static let keystroke = FrameUpdate(frameID: 42, captureMicros: 1_062_000, encodeDoneMicros: 1_062_400, sendMicros: 1_062_450,
                                       screenWidth: 1920, screenHeight: 1080, quality: 0,
                                       rects: [FrameRect(x: 100, y: 200, width: 7, height: 13, content: .lossless(Array(0xC0...0xCB)))])

    @Test func theSpecsKeystrokeExampleIsByteExactBothWays() throws {
        var host = CompactFrameContext()
        host.note(Self.previous())
        let message = host.message(for: Self.keystroke)
        #expect(message.encode() == Self.keystrokeBytes)
        // Record (5) + fragment header (5) + message + tag (16): the bar is 60 bytes on the wire.
        #expect(5 + 5 + Self.keystrokeBytes.count + 16 == 55)
        var controller = CompactFrameContext()
        controller.note(Self.previous())
        guard case .compactFrame(let frame) = try ZRCMessage.decode(Self.keystrokeBytes) else {
            Issue.record("not decoded as a compact frame")
            return
        }
        #expect(try controller.expand(frame) == Self.keystroke)
    }

    /// A host's updates, through the wire, come out as they went in, whichever of them go compact.
    @Test func updatesSurviveTheRoundTripInAnyOrder() async {
        await propertyCheck(count: 200, input: Generators.seed) { seed in
            var rng = SplitMix64(seed: seed)
            var host = CompactFrameContext()
            var controller = CompactFrameContext()
            var frameID: UInt64 = 0
            var clock: UInt64 = UInt64.random(in: 0...1 << 40, using: &rng)
            var compact = 0
            for _ in 0..<20 {
                var update = RandomValues.frameUpdate(&rng)
                update.rects = update.rects.map { rect in
                    guard case .solid(let pixel) = rect.content else { return rect }
                    return FrameRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height, content: .solid(pixel: pixel & 0xFF_FFFF))
                }
                // Mostly the next ID with times in order, as a host sends; sometimes not.
                frameID = Int.random(in: 0..<8, using: &rng) == 0 ? UInt64.random(in: 1...1000, using: &rng) : frameID + 1
                clock += UInt64.random(in: 0...200_000, using: &rng)
                update.frameID = frameID
                update.captureMicros = clock
                update.encodeDoneMicros = clock + UInt64.random(in: 0...30_000, using: &rng)
                update.sendMicros = Int.random(in: 0..<10, using: &rng) == 0 ? clock / 2 : update.encodeDoneMicros + UInt64.random(in: 0...500, using: &rng)
                let message = host.message(for: update)
                let decoded = try ZRCMessage.decode(message.encode())
                switch decoded {
                case .frameUpdate(let full):
                    controller.note(full)
                    #expect(full == update, "seed \(seed)")
                case .compactFrame(let frame):
                    compact += 1
                    #expect(try controller.expand(frame) == update, "seed \(seed)")
                default:
                    Issue.record("seed \(seed): \(decoded.type)")
                }
            }
            #expect(compact > 0, "seed \(seed): some updates go compact")
        }
    }

    @Test func aCompactFrameWithoutWhatItReliesOnIsRefused() throws {
        let frame = CompactFrame(sendTime: .after(10), queueMicros: 0, encodeMicros: 0, screenSize: nil, quality: 0, rects: [])
        var fresh = CompactFrameContext()
        #expect(wireError { () throws(WireError) in try fresh.expand(frame) }?.message.contains("no screen size") == true)
        var sized = CompactFrame(sendTime: .after(10), queueMicros: 0, encodeMicros: 0, screenSize: .init(width: 640, height: 480), quality: 0,
                                 rects: [])
        #expect(wireError { () throws(WireError) in try fresh.expand(sized) }?.message.contains("there is none") == true)
        sized.sendTime = .absolute(5)
        sized.queueMicros = 6
        #expect(wireError { () throws(WireError) in try fresh.expand(sized) } != nil, "times before the clock's start")
        var context = CompactFrameContext()
        context.note(Self.previous())
        let beyond = CompactFrame(sendTime: .after(1), queueMicros: 0, encodeMicros: 0, screenSize: nil, quality: 0,
                                  rects: [FrameRect(x: 1900, y: 0, width: 40, height: 1, content: .solid(pixel: 0))])
        #expect(wireError { () throws(WireError) in try context.expand(beyond) }?.message.contains("beyond") == true,
                "rects are checked against the screen the context knows")
    }

    @Test func reservedFlagsAndOversizedCountsAreRefusedBeforeAllocating() {
        #expect(errorKind { () throws(WireError) in try ZRCMessage.decode([0x18, 0x04, 0, 0, 0, 0, 0]) } == .invalidValue)
        // 65535 rects announced in a few bytes.
        #expect(errorKind { () throws(WireError) in try ZRCMessage.decode([0x18, 0x00, 0, 0, 0, 0, 0xFF, 0xFF, 0x03, 1, 1]) } == .truncated)
    }
}
