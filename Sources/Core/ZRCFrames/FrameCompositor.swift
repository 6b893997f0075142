public import ZRCProtocol

/// The controller's copy of the remote screen: frame updates applied in order onto one
/// framebuffer, with a version that moves on every change so a viewer polling it only ever
/// redraws the newest state (latest wins; nothing queues up behind a slow terminal).
public struct FrameCompositor: Sendable {
    public private(set) var framebuffer = PixelBuffer(width: 0, height: 0)
    /// Increases with every applied update.
    public private(set) var version: UInt64 = 0
    /// The newest update's header (timestamps, quality), without its pixel data.
    public private(set) var lastFrameID: UInt64 = 0
    public private(set) var lastTimestamps: (capture: UInt64, encodeDone: UInt64, send: UInt64) = (0, 0, 0)
    /// Where the last update drew, for renderers that redraw only what changed.
    public private(set) var lastDirty: [PixelRect] = []
    /// JPEG quality of the last update (0: it held no JPEG, so it was lossless).
    public private(set) var lastQuality = 0
    /// How the framebuffer maps to the host's screen: the region it shows and at what size.
    /// nil: the framebuffer is the whole screen at full resolution.
    public private(set) var mapping: PictureMapping?
    /// A mapping announced for the updates that follow it.
    private var announcedMapping: PictureMapping?
    /// Where each recent update drew, newest last, so a viewer that skipped versions (latest wins)
    /// still redraws only what changed since the version it shows.
    private var history: [(version: UInt64, changes: [FrameChange])] = []
    public static let historyLength = 64
    public static let maximumDirtyRects = 256
    /// Which pixels are not yet exactly the host's (JPEG, or not drawn); nil unless tracked.
    public private(set) var lossMask: LossMask?
    private let tracksExactness: Bool

    /// `tracksExactness`: keep `lossMask` (a screenshot must know when every pixel is exact).
    public init(tracksExactness: Bool = false) {
        self.tracksExactness = tracksExactness
    }

    /// Whether every pixel is exactly the host's; nil when not tracked.
    public var isExact: Bool? { lossMask?.isExact }

    /// The areas that changed after `version`; the whole screen when `version` is older than the
    /// history (or from another screen size), nothing when it is current.
    public func changes(since version: UInt64) -> [PixelRect] {
        guard version < self.version else { return [] }
        guard let oldest = history.first, version + 1 >= oldest.version else { return [framebuffer.bounds] }
        return history.filter { $0.version > version }.flatMap { $0.changes.map(\.area) }
    }

    /// How a viewer showing `version` catches up: moves to repeat, then areas to paint from the
    /// newest picture (`ChangePlan`); the whole picture when `version` is older than the history.
    public func plan(since version: UInt64) -> ChangePlan {
        guard version < self.version else { return ChangePlan() }
        guard let oldest = history.first, version + 1 >= oldest.version else { return ChangePlan(repaint: [framebuffer.bounds]) }
        return ChangePlan(history.filter { $0.version > version }.flatMap(\.changes))
    }

    /// The host's `pictureMapping`: the updates after it show that region at that size.
    public mutating func adopt(_ mapping: PictureMapping) {
        announcedMapping = mapping.isIdentity ? nil : mapping
    }

    public mutating func apply(_ update: FrameUpdate, decoder: inout some RegionDecoder) throws(FrameError) {
        let width = Int(update.screenWidth), height = Int(update.screenHeight)
        // An update of another size than the announced picture is the whole screen again.
        if let announced = announcedMapping, Int(announced.pictureWidth) != width || Int(announced.pictureHeight) != height {
            announcedMapping = nil
        }
        if mapping != announcedMapping {
            mapping = announcedMapping
            // The same pixels now mean another part of the screen: every viewer redraws it all.
            history = []
            if tracksExactness { lossMask = LossMask(width: width, height: height) }
        }
        if framebuffer.width != width || framebuffer.height != height {
            // A new screen size: start from black; the host sends the whole screen after a resize.
            framebuffer = PixelBuffer(width: width, height: height)
            history = []
            if tracksExactness { lossMask = LossMask(width: width, height: height) }
        }
        if tracksExactness, lossMask == nil { lossMask = LossMask(width: width, height: height) }
        var changes: [FrameChange] = []
        for rect in update.rects {
            let area = PixelRect(x: Int(rect.x), y: Int(rect.y), width: Int(rect.width), height: Int(rect.height))
            guard area.intersection(framebuffer.bounds) == area, !area.isEmpty else {
                throw FrameError("frame \(update.frameID): rectangle \(area) lies outside the \(width)x\(height) screen")
            }
            switch rect.content {
            case .solid(let pixel):
                framebuffer.fill(area, rgb: pixel)
            case .raw(let bgrx):
                guard bgrx.count == area.area * PixelBuffer.bytesPerPixel else {
                    throw FrameError("frame \(update.frameID): raw rectangle \(area) has \(bgrx.count) bytes")
                }
                framebuffer.blit(bgrx, into: area)
            case .jpeg(let data):
                do {
                    try decoder.decodeJPEG(data, into: &framebuffer, rect: area)
                } catch {
                    throw FrameError("frame \(update.frameID): JPEG rectangle \(area) does not decode: \(error)")
                }
            case .lossless(let chunk), .losslessFrame(let chunk), .losslessRestart(let chunk):
                // Bounded by the rect's own size before anything is decompressed.
                let payload: [UInt8]
                let maximumSize = LosslessPixels.maximumPayloadSize(width: area.width, height: area.height)
                do {
                    switch rect.content {
                    case .losslessFrame: payload = try decoder.decompressLosslessFrame(chunk, maximumSize: maximumSize)
                    case .losslessRestart: payload = try decoder.restartLossless(chunk, maximumSize: maximumSize)
                    default: payload = try decoder.decompressLossless(chunk, maximumSize: maximumSize)
                    }
                } catch {
                    throw FrameError("frame \(update.frameID): lossless rectangle \(area) does not decompress: \(error)")
                }
                do {
                    try LosslessPixels.decode(payload, into: &framebuffer, rect: area)
                } catch {
                    throw FrameError("frame \(update.frameID): lossless rectangle \(area): \(error)")
                }
            case .copy(let sourceX, let sourceY):
                let source = PixelRect(x: Int(sourceX), y: Int(sourceY), width: area.width, height: area.height)
                guard source.intersection(framebuffer.bounds) == source else {
                    throw FrameError("frame \(update.frameID): copy rectangle \(area) reads \(source), outside the screen")
                }
                framebuffer.move(source, to: area)
                lossMask?.copy(from: source, to: area)
                changes.append(.moved(from: source, to: area))
            }
            switch rect.content {
            case .jpeg: lossMask?.mark(area, exact: false)
            case .solid, .raw, .lossless, .losslessFrame, .losslessRestart: lossMask?.mark(area, exact: true)
            case .copy: break
            }
            if case .copy = rect.content {} else { changes.append(.drawn(area)) }
        }
        // Many small rects (up to 65535 per update) would make every viewer redraw and the
        // history hold millions of entries: beyond a few hundred, their bounding box stands in.
        // (Its moves are then not repeated by viewers either: the box is painted whole.)
        if changes.count > Self.maximumDirtyRects, let first = changes.first?.area {
            changes = [.drawn(changes.dropFirst().reduce(first) { $0.union($1.area) })]
        }
        version &+= 1
        lastFrameID = update.frameID
        lastTimestamps = (update.captureMicros, update.encodeDoneMicros, update.sendMicros)
        lastDirty = changes.map(\.area)
        lastQuality = Int(update.quality)
        if history.count == Self.historyLength { history.removeFirst() }
        history.append((version, changes))
    }
}
