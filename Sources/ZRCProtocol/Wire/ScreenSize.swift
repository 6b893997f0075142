/// Screen sizes are u32 on the wire for headroom, but limited to what u16 rect coordinates address.
enum ScreenSize {
    static func problem(width: UInt32, height: UInt32) -> String? {
        guard (1...UInt32(UInt16.max)).contains(width), (1...UInt32(UInt16.max)).contains(height) else {
            return "screen size \(width)x\(height) is outside 1…65535 per side"
        }
        return nil
    }
}
