public import ZRCProtocol

/// What X11 requests need of a rectangle.
extension PixelRect {
    /// The part of this rectangle inside `other`; nil when they do not overlap.
    public func clipped(to other: PixelRect) -> PixelRect? {
        let overlap = intersection(other)
        return overlap.isEmpty ? nil : overlap
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

extension KeyModifiers {
    /// The modifiers XTest presses around a key, each with the left-hand key that produces it, in
    /// the order they are pressed (the others a peer may name are state, not keys to press).
    static let keys: [(modifier: KeyModifiers, keysym: UInt32)] = [
        (.shift, Keysym.shiftLeft), (.control, Keysym.controlLeft), (.alt, Keysym.altLeft), (.super, Keysym.superLeft),
    ]
}
