import Foundation

/// Durations as people type them: `90`, `90s`, `10m`, `1h`.
public enum DurationText {
    public static func seconds(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Int)] = [("h", 3600), ("m", 60), ("s", 1)]
        for (suffix, factor) in units where trimmed.hasSuffix(suffix) {
            guard let value = Int(trimmed.dropLast(suffix.count)), value >= 0 else { return nil }
            let (product, overflow) = value.multipliedReportingOverflow(by: factor)
            return overflow ? nil : product
        }
        return Int(trimmed).flatMap { $0 >= 0 ? $0 : nil }
    }

    public static func describe(seconds: Int) -> String {
        if seconds % 3600 == 0 { return "\(seconds / 3600) h" }
        if seconds % 60 == 0 { return "\(seconds / 60) min" }
        return "\(seconds) s"
    }
}
