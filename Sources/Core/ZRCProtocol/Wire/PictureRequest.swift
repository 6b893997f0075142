/// Controller → host: the picture the controller actually shows — at most `maxWidth` ×
/// `maxHeight` pixels of `region` of the screen — so the host scales before it encodes instead of
/// sending pixels the terminal throws away.
///
/// Wire layout: maxWidth u16, maxHeight u16, regionX u16, regionY u16, regionWidth u16,
/// regionHeight u16. maxWidth = maxHeight = 0 asks for full resolution; a region of width and
/// height 0 (at 0,0) means the whole screen.
public struct PictureRequest: Sendable, Equatable {
    public var maxWidth: UInt16
    public var maxHeight: UInt16
    public var regionX: UInt16
    public var regionY: UInt16
    public var regionWidth: UInt16
    public var regionHeight: UInt16

    public init(maxWidth: UInt16, maxHeight: UInt16, regionX: UInt16 = 0, regionY: UInt16 = 0, regionWidth: UInt16 = 0,
                regionHeight: UInt16 = 0) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.regionX = regionX
        self.regionY = regionY
        self.regionWidth = regionWidth
        self.regionHeight = regionHeight
    }

    /// Every pixel of the whole screen.
    public static let fullResolution = PictureRequest(maxWidth: 0, maxHeight: 0)

    public var wantsFullResolution: Bool { maxWidth == 0 && maxHeight == 0 }
    public var wantsWholeScreen: Bool { regionWidth == 0 && regionHeight == 0 }

    func write(to writer: inout ByteWriter) {
        for value in [maxWidth, maxHeight, regionX, regionY, regionWidth, regionHeight] { writer.write(value) }
    }

    init(from reader: inout ByteReader) throws(WireError) {
        maxWidth = try reader.readUInt16("maxWidth")
        maxHeight = try reader.readUInt16("maxHeight")
        regionX = try reader.readUInt16("regionX")
        regionY = try reader.readUInt16("regionY")
        regionWidth = try reader.readUInt16("regionWidth")
        regionHeight = try reader.readUInt16("regionHeight")
    }

    func problem() -> String? {
        if (maxWidth == 0) != (maxHeight == 0) { return "maxWidth and maxHeight must both be 0 (full resolution) or both positive" }
        if (regionWidth == 0) != (regionHeight == 0) { return "regionWidth and regionHeight must both be 0 (whole screen) or both positive" }
        if wantsWholeScreen && (regionX != 0 || regionY != 0) { return "a whole-screen region must be at 0,0" }
        return nil
    }
}

/// Host → controller: how the pictures of the following frame updates map to the screen — they
/// show `region` of a `screenWidth` × `screenHeight` screen, scaled to `pictureWidth` ×
/// `pictureHeight` (never enlarged). Cursor positions and input stay in screen pixels.
///
/// Wire layout: screenWidth u32, screenHeight u32, regionX u16, regionY u16, regionWidth u16,
/// regionHeight u16, pictureWidth u16, pictureHeight u16.
public struct PictureMapping: Sendable, Equatable, Hashable {
    public var screenWidth: UInt32
    public var screenHeight: UInt32
    public var regionX: UInt16
    public var regionY: UInt16
    public var regionWidth: UInt16
    public var regionHeight: UInt16
    public var pictureWidth: UInt16
    public var pictureHeight: UInt16

    public init(screenWidth: UInt32, screenHeight: UInt32, regionX: UInt16, regionY: UInt16, regionWidth: UInt16, regionHeight: UInt16,
                pictureWidth: UInt16, pictureHeight: UInt16) {
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.regionX = regionX
        self.regionY = regionY
        self.regionWidth = regionWidth
        self.regionHeight = regionHeight
        self.pictureWidth = pictureWidth
        self.pictureHeight = pictureHeight
    }

    /// The whole screen at full resolution: what a controller assumes until told otherwise.
    public static func identity(width: UInt32, height: UInt32) -> PictureMapping {
        PictureMapping(screenWidth: width, screenHeight: height, regionX: 0, regionY: 0, regionWidth: UInt16(clamping: width),
                       regionHeight: UInt16(clamping: height), pictureWidth: UInt16(clamping: width), pictureHeight: UInt16(clamping: height))
    }

    public var isIdentity: Bool {
        regionX == 0 && regionY == 0 && UInt32(regionWidth) == screenWidth && UInt32(regionHeight) == screenHeight
            && pictureWidth == regionWidth && pictureHeight == regionHeight
    }

    func write(to writer: inout ByteWriter) {
        writer.write(screenWidth)
        writer.write(screenHeight)
        for value in [regionX, regionY, regionWidth, regionHeight, pictureWidth, pictureHeight] { writer.write(value) }
    }

    init(from reader: inout ByteReader) throws(WireError) {
        screenWidth = try reader.readUInt32("screenWidth")
        screenHeight = try reader.readUInt32("screenHeight")
        regionX = try reader.readUInt16("regionX")
        regionY = try reader.readUInt16("regionY")
        regionWidth = try reader.readUInt16("regionWidth")
        regionHeight = try reader.readUInt16("regionHeight")
        pictureWidth = try reader.readUInt16("pictureWidth")
        pictureHeight = try reader.readUInt16("pictureHeight")
    }

    func problem() -> String? {
        if let problem = ScreenSize.problem(width: screenWidth, height: screenHeight) { return problem }
        if regionWidth == 0 || regionHeight == 0 { return "the region is empty" }
        if UInt32(regionX) + UInt32(regionWidth) > screenWidth || UInt32(regionY) + UInt32(regionHeight) > screenHeight {
            return "the region \(regionWidth)x\(regionHeight) at \(regionX),\(regionY) extends beyond the \(screenWidth)x\(screenHeight) screen"
        }
        if pictureWidth == 0 || pictureHeight == 0 { return "the picture is empty" }
        if pictureWidth > regionWidth || pictureHeight > regionHeight {
            return "the picture \(pictureWidth)x\(pictureHeight) is larger than its \(regionWidth)x\(regionHeight) region"
        }
        return nil
    }
}
