/// A frame update in few bytes (`compactFrames`, message 0x18): what `frameUpdate` says, with the
/// frame ID and the screen size implied by the previous update and the three timestamps as
/// differences. A keystroke's update in a terminal is about 30 bytes instead of 70.
///
/// Wire layout (after the type byte): u8 flags (bit 0: the screen size follows, bit 1: the send
/// time is absolute; other bits 0), varint send time (absolute, or after the previous update's),
/// varint queue (send − encode done), varint encode (encode done − capture), [u16 width, u16
/// height], u8 quality, varint rect count, compact rects. `CompactFrameContext` turns it into the
/// `FrameUpdate` it stands for, and back.
public struct CompactFrame: Sendable, Equatable {
    public enum SendTime: Sendable, Equatable {
        /// The host's monotonic clock, µs.
        case absolute(UInt64)
        /// µs after the previous update's send time.
        case after(UInt64)
    }

    public struct Size: Sendable, Equatable {
        public var width: UInt16
        public var height: UInt16

        public init(width: UInt16, height: UInt16) {
            self.width = width
            self.height = height
        }
    }

    public var sendTime: SendTime
    /// sendMicros − encodeDoneMicros.
    public var queueMicros: UInt64
    /// encodeDoneMicros − captureMicros.
    public var encodeMicros: UInt64
    /// The screen's size when it differs from the previous update's (or there is none).
    public var screenSize: Size?
    public var quality: UInt8
    public var rects: [FrameRect]

    public init(sendTime: SendTime, queueMicros: UInt64, encodeMicros: UInt64, screenSize: Size?, quality: UInt8, rects: [FrameRect]) {
        self.sendTime = sendTime
        self.queueMicros = queueMicros
        self.encodeMicros = encodeMicros
        self.screenSize = screenSize
        self.quality = quality
        self.rects = rects
    }

    /// The fewest bytes a compact rect takes (one-byte geometry, encoding, two bytes of data).
    static let minimumRectBytes = 7

    func write(to writer: inout ByteWriter) {
        var flags: UInt8 = screenSize == nil ? 0 : 1
        if case .absolute = sendTime { flags |= 2 }
        writer.write(flags)
        switch sendTime {
        case .absolute(let micros), .after(let micros): writer.write(varint: micros)
        }
        writer.write(varint: queueMicros)
        writer.write(varint: encodeMicros)
        if let screenSize {
            writer.write(screenSize.width)
            writer.write(screenSize.height)
        }
        writer.write(quality)
        writer.write(varint: UInt64(rects.count))
        for rect in rects { rect.writeCompact(to: &writer) }
    }

    init(from reader: inout ByteReader) throws(WireError) {
        let flags = try reader.readUInt8("flags")
        guard flags & ~3 == 0 else { throw reader.invalid("flags", "has reserved bits set (0x\(String(flags, radix: 16)))") }
        let time = try reader.readVarint("sendTime")
        sendTime = flags & 2 != 0 ? .absolute(time) : .after(time)
        queueMicros = try reader.readVarint("queueMicros")
        encodeMicros = try reader.readVarint("encodeMicros")
        screenSize = flags & 1 != 0 ? Size(width: try reader.readUInt16("screenWidth"), height: try reader.readUInt16("screenHeight")) : nil
        quality = try reader.readUInt8("quality")
        let count = Int(try reader.readVarint("rect count", maximum: UInt64(UInt16.max)))
        // Checked against the bytes left before reserving room for the rects.
        guard count * Self.minimumRectBytes <= reader.remainingCount else {
            throw WireError(.truncated,
                            "\(reader.context): \(count) rects need at least \(count * Self.minimumRectBytes) bytes, only \(reader.remainingCount) left")
        }
        var rects: [FrameRect] = []
        rects.reserveCapacity(count)
        for index in 0..<count { rects.append(try FrameRect(compactFrom: &reader, field: "rects[\(index)]")) }
        self.rects = rects
    }

    /// What the message alone can be checked for; the rects against the screen are checked when
    /// the update it stands for is known (`CompactFrameContext.expand`).
    func problem() -> String? {
        if let screenSize, let problem = ScreenSize.problem(width: UInt32(screenSize.width), height: UInt32(screenSize.height)) {
            return problem
        }
        if quality > 100 { return "quality is \(quality), must be 0…100" }
        if rects.count > Int(UInt16.max) { return "has \(rects.count) rects, at most 65535" }
        for (index, rect) in rects.enumerated() {
            if let problem = rect.problem(screenWidth: UInt32(UInt16.max) + 1, screenHeight: UInt32(UInt16.max) + 1) {
                return "rects[\(index)] \(problem)"
            }
        }
        return nil
    }
}
