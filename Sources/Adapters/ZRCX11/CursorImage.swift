/// The cursor's shape: `width` × `height` pixels, 4 bytes each in the order R, G, B, A with
/// straight (not premultiplied) alpha, rows packed. The hotspot is the pixel that sits at the
/// pointer position. `serial` changes whenever the server's cursor changes, so a host sends the
/// shape once per serial and the position separately.
public struct CursorImage: Sendable, Hashable {
    public let width: Int
    public let height: Int
    public let hotspotX: Int
    public let hotspotY: Int
    public let serial: UInt32
    public let rgba: [UInt8]

    /// Converts XFIXES pixels (32-bit ARGB, premultiplied alpha, as Render cursors are stored)
    /// to straight RGBA, which is what viewers blend with. Colour under zero alpha is zero.
    init(width: Int, height: Int, hotspotX: Int, hotspotY: Int, serial: UInt32, premultipliedARGB: UnsafeBufferPointer<UInt32>) {
        self.width = width
        self.height = height
        self.hotspotX = hotspotX
        self.hotspotY = hotspotY
        self.serial = serial
        var rgba = [UInt8](repeating: 0, count: premultipliedARGB.count * 4)
        for (index, pixel) in premultipliedARGB.enumerated() {
            let alpha = pixel >> 24
            guard alpha > 0 else { continue }
            // Rounded division; clamped because a malformed pixel can have colour above alpha.
            func straight(_ shift: UInt32) -> UInt8 { UInt8(min(255, ((pixel >> shift & 0xFF) * 255 + alpha / 2) / alpha)) }
            rgba[index * 4] = straight(16)
            rgba[index * 4 + 1] = straight(8)
            rgba[index * 4 + 2] = straight(0)
            rgba[index * 4 + 3] = UInt8(alpha)
        }
        self.rgba = rgba
    }
}

/// Where the pointer is, in root-window (screen) pixels.
public struct PointerPosition: Sendable, Hashable {
    public let x: Int
    public let y: Int

    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
}
