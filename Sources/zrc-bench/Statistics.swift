/// Median and percentiles of measured durations, printed in milliseconds.
struct Samples {
    private(set) var values: [Double] = []

    mutating func add(_ duration: Duration) {
        values.append(Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
    }

    func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    var summary: String {
        String(format: "median %7.3f ms   p95 %7.3f ms   (n=%d)", percentile(0.5), percentile(0.95), values.count)
    }
}
