import Foundation

/// Microsecond timestamps for the wire: wall-clock time for values the peer interprets (handshake
/// timestamps), a monotonic clock for durations measured on one machine (round-trip times).
public enum WireClock {
    public static func unixMicros() -> UInt64 {
        UInt64(max(0, Date().timeIntervalSince1970 * 1_000_000))
    }

    public static func monotonicMicros() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000 + UInt64(spec.tv_nsec) / 1_000
    }
}
