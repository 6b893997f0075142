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
