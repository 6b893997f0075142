import Foundation
import ZRCProtocol

/// Validation shared by the documents: names, versions, uniqueness.
extension KeyedDecodingContainer {
    /// Names appear on command lines and in listings: 1–64 characters, no control characters,
    /// no leading or trailing space.
    func decodeDeviceName(forKey key: Key) throws -> String {
        let name = try decode(String.self, forKey: key)
        if let problem = DeviceName.problem(with: name) {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: problem)
        }
        return name
    }

    func decodeSupportedVersion(forKey key: Key, current: Int) throws -> Int {
        let version = try decode(Int.self, forKey: key)
        guard version == current else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: version > current
                    ? "version \(version) was written by a newer ZRC; this one reads version \(current) — upgrade ZRC"
                    : "version \(version) is not supported (expected \(current))")
        }
        return version
    }

    func requireUnique<T: Hashable>(_ values: [T], what: String, forKey key: Key) throws {
        var seen = Set<T>()
        for (index, value) in values.enumerated() where !seen.insert(value).inserted {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "entry \(index) repeats a \(what) used by an earlier entry")
        }
    }
}

public enum DeviceName {
    /// Why `name` is not acceptable, or nil when it is: 1…64 characters (256 UTF-8 bytes at most),
    /// nothing a terminal would act on or hide (control, format, bidirectional or zero-width
    /// characters: see `TerminalSafeText`), no leading or trailing space.
    public static func problem(with name: String) -> String? {
        if name.isEmpty { return "a name must not be empty" }
        if name.count > 64 || name.utf8.count > 256 { return "a name must be at most 64 characters (256 bytes)" }
        if !TerminalSafeText.isSafe(name) {
            return "a name must not contain control, formatting, bidirectional or invisible characters"
        }
        if name.first?.isWhitespace == true || name.last?.isWhitespace == true {
            return "a name must not start or end with a space"
        }
        return nil
    }
}

extension KeyedDecodingContainer {
    /// Dates are RFC 3339 strings; parsed here so an error names the field (Foundation's date
    /// strategy reports the enclosing object instead).
    func decodeDate(forKey key: Key) throws -> Date {
        let text = try decode(String.self, forKey: key)
        if let date = InternetDateTime.parse(text) { return date }
        throw DecodingError.dataCorruptedError(
            forKey: key, in: self, debugDescription: "expected an RFC 3339 date-time such as 2026-11-22T09:30:00Z, got `\(text)`")
    }

    func decodeDateIfPresent(forKey key: Key) throws -> Date? {
        try contains(key) && !decodeNil(forKey: key) ? decodeDate(forKey: key) : nil
    }

    func decodeChoice<Choice: RawRepresentable & CaseIterable>(_ type: Choice.Type, forKey key: Key) throws -> Choice?
    where Choice.RawValue == String {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let choice = Choice(rawValue: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "`\(text)` is not one of: \(Choice.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return choice
    }
}
