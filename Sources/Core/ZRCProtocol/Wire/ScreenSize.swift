/// Screen sizes are u32 on the wire for headroom, but limited to `WireLimits.maxScreenSide` per
/// side and `WireLimits.maxScreenPixels` in all, checked before anything is allocated for them.
enum ScreenSize {
    static func problem(width: UInt32, height: UInt32) -> String? {
        let side = 1...UInt32(WireLimits.maxScreenSide)
        guard side.contains(width), side.contains(height) else {
            return "screen size \(width)x\(height) is outside 1…\(WireLimits.maxScreenSide) per side"
        }
        guard Int(width) * Int(height) <= WireLimits.maxScreenPixels else {
            return "screen size \(width)x\(height) has more than \(WireLimits.maxScreenPixels) pixels"
        }
        return nil
    }
}
