import Foundation

/// Median and percentiles of measured values.
struct Samples {
    private(set) var values: [Double] = []

    mutating func add(_ duration: Duration) {
        values.append(Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
    }

    /// A duration in microseconds, kept in milliseconds.
    mutating func add(micros: UInt64) { values.append(Double(micros) / 1000) }

    mutating func add(value: Double) { values.append(value) }

    var isEmpty: Bool { values.isEmpty }

    func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    /// Median and p95 in milliseconds.
    var summary: String {
        String(format: "median %7.3f ms   p95 %7.3f ms   (n=%d)", percentile(0.5), percentile(0.95), values.count)
    }

    /// "median / p95" columns for a table, in milliseconds.
    var columns: String {
        values.isEmpty ? String(format: "%9@ %9@", "—", "—") : String(format: "%9.3f %9.3f", percentile(0.5), percentile(0.95))
    }
}
