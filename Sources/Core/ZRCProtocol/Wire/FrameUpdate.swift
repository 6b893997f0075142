/// The changed regions of the host's screen since the previous update, with the timestamps the
/// controller needs for a latency breakdown.
///
/// Wire layout (after the message type byte): frameID u64, captureMicros u64, encodeDoneMicros u64,
/// sendMicros u64, screenWidth u32, screenHeight u32, quality u8, rect count u16, rects.
public struct FrameUpdate: Sendable, Equatable {
    /// Increases by one per update, so acks and drops can be matched.
    public var frameID: UInt64
    /// Host monotonic clock, microseconds. Only differences between the three host timestamps mean
    /// anything; the controller's clock is unrelated.
    public var captureMicros: UInt64
    public var encodeDoneMicros: UInt64
    public var sendMicros: UInt64
    /// Size of the whole screen, 1…`WireLimits.maxScreenSide` each and at most
    /// `WireLimits.maxScreenPixels` in all. A change of size tells the controller to resize its
    /// framebuffer before applying the rects.
    public var screenWidth: UInt32
    public var screenHeight: UInt32
    /// JPEG quality used, 1…100, or 0 when no rect in this update is lossy.
    public var quality: UInt8
    /// At most 65535 rects (u16 count), each within the screen, applied in order. The drawn rects
    /// together cover at most the screen's area, and so do the copy rects.
    public var rects: [FrameRect]

    public init(
        frameID: UInt64, captureMicros: UInt64, encodeDoneMicros: UInt64, sendMicros: UInt64,
        screenWidth: UInt32, screenHeight: UInt32, quality: UInt8, rects: [FrameRect]
    ) {
        self.frameID = frameID
        self.captureMicros = captureMicros
        self.encodeDoneMicros = encodeDoneMicros
        self.sendMicros = sendMicros
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.quality = quality
        self.rects = rects
    }

    func write(to writer: inout ByteWriter) {
        writer.write(frameID)
        writer.write(captureMicros)
        writer.write(encodeDoneMicros)
        writer.write(sendMicros)
        writer.write(screenWidth)
        writer.write(screenHeight)
        writer.write(quality)
        writer.write(UInt16(rects.count))
        for rect in rects { rect.write(to: &writer) }
    }

    init(from reader: inout ByteReader) throws(WireError) {
        frameID = try reader.readUInt64("frameID")
        captureMicros = try reader.readUInt64("captureMicros")
        encodeDoneMicros = try reader.readUInt64("encodeDoneMicros")
        sendMicros = try reader.readUInt64("sendMicros")
        screenWidth = try reader.readUInt32("screenWidth")
        screenHeight = try reader.readUInt32("screenHeight")
        quality = try reader.readUInt8("quality")
        let count = Int(try reader.readUInt16("rect count"))
        // Each rect takes at least 13 bytes, so a count the remaining bytes cannot hold is caught
        // before reserving room for it.
        guard count * 13 <= reader.remainingCount else {
            throw WireError(
                .truncated, "\(reader.context): \(count) rects need at least \(count * 13) bytes, only \(reader.remainingCount) left")
        }
        var rects: [FrameRect] = []
        rects.reserveCapacity(count)
        for index in 0..<count { rects.append(try FrameRect(from: &reader, field: "rects[\(index)]")) }
        self.rects = rects
    }

    /// The pixels its rects draw (copies aside): what an update costs to encode and decode.
    public var drawnPixels: Int {
        rects.reduce(0) { $0 + ($1.content.isCopy ? 0 : Int($1.width) * Int($1.height)) }
    }

    /// Why this update is invalid, or nil when it is fine.
    func problem() -> String? {
        if let problem = ScreenSize.problem(width: screenWidth, height: screenHeight) { return problem }
        if quality > 100 { return "quality is \(quality), must be 0…100" }
        if rects.count > Int(UInt16.max) { return "has \(rects.count) rects, at most 65535 fit the count field" }
        // Pixels drawn and pixels copied are capped separately, each at the screen's area: a
        // scroll copies most of the screen and then draws the strip it exposed.
        var drawn = 0, copied = 0
        for (index, rect) in rects.enumerated() {
            if let problem = rect.problem(screenWidth: screenWidth, screenHeight: screenHeight) {
                return "rects[\(index)] \(problem)"
            }
            if rect.content.isCopy {
                copied += Int(rect.width) * Int(rect.height)
            } else {
                drawn += Int(rect.width) * Int(rect.height)
            }
        }
        // Rects lie on the screen, so these sums are at most 65535 × maxScreenPixels: no overflow.
        let screen = Int(screenWidth) * Int(screenHeight)
        if drawn > screen {
            return "rects cover \(drawn) pixels, more than the \(screenWidth)x\(screenHeight) screen has"
        }
        if copied > screen {
            return "copy rects move \(copied) pixels, more than the \(screenWidth)x\(screenHeight) screen has"
        }
        return nil
    }
}
