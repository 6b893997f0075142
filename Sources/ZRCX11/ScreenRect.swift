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

    /// Whether the rectangle is non-empty and lies inside a `screenWidth` × `screenHeight` screen.
    /// Screens are at most 32767 pixels on a side in X11, so none of these sums overflow for
    /// rectangles that pass the first checks.
    func fits(screenWidth: Int, screenHeight: Int) -> Bool {
        width > 0 && height > 0 && x >= 0 && y >= 0
            && width <= screenWidth && height <= screenHeight
            && x <= screenWidth - width && y <= screenHeight - height
    }
}
