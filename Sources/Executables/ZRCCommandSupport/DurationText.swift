import Foundation

/// Durations as people type them: `90`, `90s`, `0.2s`, `200ms`, `1.5m`, `10min`, `1h`. A bare
/// number is seconds. Negative, non-numeric, unknown units and absurd sizes (over 100 days) are
/// not durations.
public enum DurationText {
    static let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("min", 60), ("s", 1), ("m", 60), ("h", 3600)]
    static let maximumSeconds = 100.0 * 86_400

    public static func duration(_ text: String) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        var number = Substring(trimmed)
        var factor = 1.0
        if let unit = units.first(where: { trimmed.hasSuffix($0.suffix) }) {
            number = trimmed.dropLast(unit.suffix.count)
            factor = unit.seconds
        }
        number = number.drop { $0 == " " }
        while number.last == " " { number = number.dropLast() }
        // Digits with at most one decimal point; nothing else (no sign, exponent, inf or nan).
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              number.filter({ $0 == "." }).count <= 1, number != ".", let value = Double(number) else { return nil }
        let seconds = value * factor
        guard seconds.isFinite, seconds <= maximumSeconds else { return nil }
        return .microseconds(Int64((seconds * 1_000_000).rounded()))
    }

    /// Whole seconds (for settings kept in seconds, such as an invite's lifetime); nil for a
    /// duration that is not a whole number of seconds.
    public static func seconds(_ text: String) -> Int? {
        guard let duration = duration(text), duration.components.attoseconds == 0 else { return nil }
        return Int(duration.components.seconds)
    }

    public static func describe(seconds: Int) -> String {
        if seconds % 3600 == 0 { return "\(seconds / 3600) h" }
        if seconds % 60 == 0 { return "\(seconds / 60) min" }
        return "\(seconds) s"
    }
}
