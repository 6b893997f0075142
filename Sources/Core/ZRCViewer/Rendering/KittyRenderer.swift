internal import ExtrasBase64
public import ZRCFrames
public import ZRCProtocol

/// Writes pixels where a kitty-protocol terminal on this machine can read them (a POSIX
/// shared-memory object) and returns the object's name; the terminal unlinks it after reading.
public protocol KittySharedMemoryWriter {
    func write(_ bytes: [UInt8]) throws -> String
}

/// The kitty graphics protocol: the picture is one image kept by the terminal, placed over the
/// drawing area. Pixels travel through shared memory when the terminal runs on this machine (it
/// showed it can read ours), otherwise inline as chunked base64. In kitty itself only the changed
/// rectangles are sent after the first frame (editing the image in place, the protocol's frame
/// editing); other terminals that speak the protocol get the whole image each time.
public struct KittyRenderer: TerminalRenderer {
    public static let imageID = 0x5A52
    /// Base64 characters per escape sequence, the protocol's limit.
    static let chunkLength = 4096
    /// Past this share of the image changed, one whole image is cheaper than many rectangles.
    static let wholeImageShare = 0.5

    public let partialUpdates: Bool
    private let sharedMemory: (any KittySharedMemoryWriter)?
    /// The image size and place the terminal holds, if any.
    private var shown: TerminalArea?

    public init(partialUpdates: Bool, sharedMemory: (any KittySharedMemoryWriter)?) {
        self.partialUpdates = partialUpdates
        self.sharedMemory = sharedMemory
    }

    public var name: String { sharedMemory == nil ? "kitty" : "kitty (shm)" }

    public func pixelsPerCell(cellWidth: Int, cellHeight: Int) -> (width: Int, height: Int) { (cellWidth, cellHeight) }

    public mutating func draw(_ image: PixelBuffer, changed: [PixelRect]?, in area: TerminalArea) throws -> [UInt8] {
        precondition(image.width == area.pixelWidth && image.height == area.pixelHeight, "the image must fill the area")
        var output: [UInt8] = []
        if partialUpdates, shown == area, let changed {
            let rects = changed.map { $0.intersection(image.bounds) }.filter { !$0.isEmpty }
            let changedArea = rects.reduce(0) { $0 + $1.area }
            guard Double(changedArea) <= Self.wholeImageShare * Double(image.bounds.area) else {
                try edit(image.bounds, of: image, into: &output)
                return output
            }
            for rect in rects { try edit(rect, of: image, into: &output) }
            return output
        }
        if shown != nil { output += Self.command("a=d,d=I,i=\(Self.imageID),q=2") }
        // The image goes where the cursor is; c/r make the terminal fit it to the cells even if
        // our idea of the cell size is off; z=-1 puts it under text, so the help box shows.
        output += Array("\u{1B}[\(area.row + 1);\(area.column + 1)H".utf8)
        try transmit("a=T,i=\(Self.imageID),p=1,q=2,C=1,z=-1,c=\(area.columns),r=\(area.rows),f=24,s=\(image.width),v=\(image.height)",
                     pixels: Self.rgb(image, image.bounds), into: &output)
        shown = area
        return output
    }

    public func clear() -> [UInt8] {
        shown == nil ? [] : Self.command("a=d,d=I,i=\(Self.imageID),q=2")
    }

    /// Replaces `rect` of the shown image (frame 1, the image itself) and shows the result.
    private func edit(_ rect: PixelRect, of image: PixelBuffer, into output: inout [UInt8]) throws {
        try transmit("a=f,r=1,i=\(Self.imageID),q=2,f=24,x=\(rect.x),y=\(rect.y),s=\(rect.width),v=\(rect.height)",
                     pixels: Self.rgb(image, rect), into: &output)
        output += Self.command("a=a,c=1,i=\(Self.imageID),q=2")
    }

    private func transmit(_ keys: String, pixels: [UInt8], into output: inout [UInt8]) throws {
        if let sharedMemory {
            let name = try sharedMemory.write(pixels)
            output += Self.command("\(keys),t=s,S=\(pixels.count)", payload: Base64.encodeToBytes(bytes: Array(name.utf8)))
            return
        }
        let encoded = Base64.encodeToBytes(bytes: pixels)
        var offset = 0
        repeat {
            let end = min(encoded.count, offset + Self.chunkLength)
            let more = end < encoded.count ? 1 : 0
            output += Self.command(offset == 0 ? "\(keys),m=\(more)" : "m=\(more)", payload: encoded[offset..<end])
            offset = end
        } while offset < encoded.count
    }

    static func command(_ keys: String, payload: some Collection<UInt8> = [UInt8]()) -> [UInt8] {
        var bytes: [UInt8] = [0x1B, UInt8(ascii: "_"), UInt8(ascii: "G")]
        bytes += keys.utf8
        if !payload.isEmpty {
            bytes.append(UInt8(ascii: ";"))
            bytes += payload
        }
        bytes += [0x1B, UInt8(ascii: "\\")]
        return bytes
    }

    /// `rect` of a BGRX image as tightly packed RGB, the protocol's `f=24`.
    static func rgb(_ image: PixelBuffer, _ rect: PixelRect) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: rect.area * 3)
        image.bytes.withUnsafeBytes { source in
            rgb.withUnsafeMutableBytes { target in
                var t = 0
                for y in rect.y..<rect.maxY {
                    var s = y * image.bytesPerRow + rect.x * 4
                    for _ in 0..<rect.width {
                        target[t] = source[s + 2]
                        target[t + 1] = source[s + 1]
                        target[t + 2] = source[s]
                        t += 3
                        s += 4
                    }
                }
            }
        }
        return rgb
    }
}
