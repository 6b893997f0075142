public import ZRCFrames
public import ZRCProtocol

/// The picture the viewer shows in its drawing area: the visible part of the newest remote frame,
/// scaled as the viewport says, with the remote pointer drawn on top; and, after each update, the
/// local rectangles that changed, so a renderer can send only those.
///
/// The remote frame is lent for each update, never kept: a 1080p framebuffer is 8 MB, and a
/// reference held here would make the session copy it before applying the next update.
public struct ViewerPicture: Sendable {
    /// The remote pointer as last reported.
    public struct Pointer: Sendable, Equatable {
        public var shape: CursorShape
        public var x: Int32
        public var y: Int32

        public init(shape: CursorShape, x: Int32, y: Int32) {
            self.shape = shape
            self.x = x
            self.y = y
        }
    }

    /// Made with the first frame, remade when the viewport changes.
    private var scaler: FrameScaler?
    private var pointer: Pointer?
    private var pointerRect: PixelRect?

    public init() {}

    /// The picture, once a frame has arrived.
    public var image: PixelBuffer? { scaler?.output }

    /// Brings the picture up to date.
    ///
    /// - Parameters:
    ///   - frame: the newest remote frame, nil before the first; `changedRemote` says where it
    ///     differs from the one of the previous update.
    ///   - pointer: the remote pointer, nil when hidden or unknown.
    ///   - mapping: which part of the screen the frame shows at what size; nil: all of it, unscaled.
    ///   - viewport: must describe the screen's size (the mapping's, or the frame's without one).
    ///   - full: redraw everything (the terminal was cleared).
    /// - Returns: the local rectangles that changed, nil when everything did; empty when nothing did
    ///   or there is no frame yet.
    public mutating func update(frame: PixelBuffer?, changedRemote: [PixelRect], pointer newPointer: Pointer?, viewport: Viewport,
                                mapping: PictureMapping? = nil, full: Bool) -> [PixelRect]? {
        guard let frame else { return [] }
        let screen = mapping.map { (Int($0.screenWidth), Int($0.screenHeight)) } ?? (frame.width, frame.height)
        let picture = mapping.map { (Int($0.pictureWidth), Int($0.pictureHeight)) } ?? (frame.width, frame.height)
        guard screen == (viewport.remoteWidth, viewport.remoteHeight), picture == (frame.width, frame.height) else { return [] }
        let rebuild = scaler?.viewport != viewport || scaler?.mapping != mapping
        if rebuild { scaler = FrameScaler(viewport: viewport, mapping: mapping) }
        guard var scaler else { return [] }
        defer { self.scaler = scaler }

        if rebuild || full {
            scaler.drawAll(from: frame)
            pointer = newPointer
            pointerRect = drawPointer(into: &scaler)
            return nil
        }
        var changed = changedRemote.compactMap { scaler.localRect(covering: scaler.screenRect(ofPicture: $0)) }
        guard !changed.isEmpty || newPointer != pointer else { return [] }
        // The old pointer is always painted over first, so the new one is never blended twice.
        if let old = pointerRect { changed.append(old) }
        scaler.redraw(changed, from: frame)
        pointer = newPointer
        // The pointer is drawn again wherever the redraw may have covered it.
        pointerRect = drawPointer(into: &scaler)
        if let pointerRect { changed.append(pointerRect) }
        return changed.map { $0.intersection(scaler.output.bounds) }.filter { !$0.isEmpty }
    }

    private func drawPointer(into scaler: inout FrameScaler) -> PixelRect? {
        guard let pointer,
              let rect = CursorOverlay.localRect(shape: pointer.shape, x: pointer.x, y: pointer.y, viewport: scaler.viewport,
                                                 imageBounds: scaler.imageBounds)
        else { return nil }
        let clip = scaler.imageBounds
        scaler.drawOnTop { CursorOverlay.draw(pointer.shape, into: &$0, at: rect, clip: clip) }
        return rect.intersection(clip)
    }
}
