/// A ceiling on a transfer's rate, as `scp -l` or `rsync --bwlimit` give one: so a copy leaves the
/// rest of a shared link (or a metered one) alone. Sans-IO: it says when a byte count is due, the
/// caller waits.
public struct TransferRateLimit: Sendable, Equatable, CustomStringConvertible {
    /// Bytes a second, at least `minimum`.
    public let bytesPerSecond: UInt64

    /// Below this a file's chunks (16 KiB) would each wait longer than a session's keep-alive.
    public static let minimum: UInt64 = 1024

    public init?(bytesPerSecond: UInt64) {
        guard bytesPerSecond >= Self.minimum else { return nil }
        self.bytesPerSecond = bytesPerSecond
    }

    /// `500K`, `2M`, `1.5G` (binary units, as rsync reads them; a bare number is KiB a second,
    /// also as rsync), or with a `B` suffix for bytes: `4096B`. Nil for anything else, zero, or
    /// more than 1 TiB a second.
    public init?(parsing text: String) {
        var digits = Substring(text.uppercased())
        var unit: UInt64 = 1024
        if let last = digits.last, !last.isNumber {
            switch last {
            case "B": unit = 1
            case "K": unit = 1024
            case "M": unit = 1024 * 1024
            case "G": unit = 1024 * 1024 * 1024
            default: return nil
            }
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              digits.filter({ $0 == "." }).count <= 1, let value = Double(digits), value.isFinite else { return nil }
        let bytes = value * Double(unit)
        guard bytes <= Double(UInt64(1) << 40) else { return nil }
        self.init(bytesPerSecond: UInt64(bytes))
    }

    /// Microseconds after a transfer's start at which `bytes` of it may have left.
    public func dueMicros(after bytes: UInt64) -> UInt64 {
        // Split so `bytes × 10⁶` cannot overflow for any file the protocol allows (2⁶³ bytes).
        let whole = bytes / bytesPerSecond
        let rest = bytes % bytesPerSecond
        return whole * 1_000_000 + rest * 1_000_000 / bytesPerSecond
    }

    public var description: String { "\(ByteCount.text(bytesPerSecond))/s" }
}
