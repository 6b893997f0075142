/// Host → controller (`monitors`): the monitors of the shared area, so a viewer can show one of
/// them or all (it asks for a monitor's region with `pictureRequest`). Sent after `hello` and
/// whenever the layout changes.
///
/// Wire layout: u8 count (1…16), then per monitor: x, y, width, height u16 (shared-area pixels,
/// inside it), u8 flags (bit 0 primary; the rest 0), short string name (RandR's, e.g. "HDMI-1").
public struct MonitorArea: Sendable, Equatable {
    public static let maximumCount = 16

    public var x: UInt16
    public var y: UInt16
    public var width: UInt16
    public var height: UInt16
    public var isPrimary: Bool
    /// A peer's text: sanitized before any terminal or page shows it.
    public var name: String

    public init(x: UInt16, y: UInt16, width: UInt16, height: UInt16, isPrimary: Bool, name: String) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.isPrimary = isPrimary
        self.name = name
    }

    static func write(_ list: [MonitorArea], to writer: inout ByteWriter) {
        writer.write(UInt8(list.count))
        for monitor in list {
            writer.write(monitor.x)
            writer.write(monitor.y)
            writer.write(monitor.width)
            writer.write(monitor.height)
            writer.write(UInt8(monitor.isPrimary ? 1 : 0))
            writer.write(shortString: monitor.name)
        }
    }

    static func read(from reader: inout ByteReader) throws(WireError) -> [MonitorArea] {
        let count = Int(try reader.readUInt8("monitor count"))
        guard (1...maximumCount).contains(count) else { throw reader.invalid("monitor count", "is \(count), must be 1…\(maximumCount)") }
        var list: [MonitorArea] = []
        for index in 0..<count {
            let x = try reader.readUInt16("monitors[\(index)].x"), y = try reader.readUInt16("monitors[\(index)].y")
            let width = try reader.readUInt16("monitors[\(index)].width"), height = try reader.readUInt16("monitors[\(index)].height")
            let flags = try reader.readUInt8("monitors[\(index)].flags")
            guard flags & ~1 == 0 else { throw reader.invalid("monitors[\(index)].flags", "has unknown bits 0x\(String(flags, radix: 16))") }
            let monitor = MonitorArea(x: x, y: y, width: width, height: height, isPrimary: flags & 1 != 0,
                                      name: try reader.readShortString("monitors[\(index)].name"))
            if let problem = monitor.problem() { throw reader.invalid("monitors[\(index)]", problem) }
            list.append(monitor)
        }
        return list
    }

    func problem() -> String? {
        if width == 0 || height == 0 { return "is empty (\(width)x\(height))" }
        if Int(x) + Int(width) > Int(UInt16.max) || Int(y) + Int(height) > Int(UInt16.max) { return "reaches past 65535" }
        return nil
    }
}
