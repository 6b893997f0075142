/// A rectangle of the screen in pixels, origin at the top-left corner.
public struct ScreenRect: Sendable, Hashable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)x\(height) at \(x),\(y)" }

    /// The part of this rectangle inside `other`; nil when they do not overlap.
    public func clipped(to other: ScreenRect) -> ScreenRect? {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(x + width, other.x + other.width), bottom = min(y + height, other.y + other.height)
        guard right > left, bottom > top else { return nil }
        return ScreenRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Whether the rectangle is non-empty, lies inside a `screenWidth` × `screenHeight` screen,
    /// and can be sent in a request (origins are 16-bit signed, sizes 16-bit unsigned in X11).
    /// Written as subtractions so that no hostile value can overflow.
    func fits(screenWidth: Int, screenHeight: Int) -> Bool {
        width > 0 && height > 0 && x >= 0 && y >= 0
            && width <= screenWidth && height <= screenHeight
            && x <= screenWidth - width && y <= screenHeight - height
            && x <= Int(Int16.max) && y <= Int(Int16.max)
            && width <= Int(UInt16.max) && height <= Int(UInt16.max)
    }
}
