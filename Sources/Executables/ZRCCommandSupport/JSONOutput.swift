import Foundation

/// `--json` output of both programs: one JSON object per command on one line of stdout, keys
/// sorted, dates as ISO 8601 (UTC), absent values as null. The shapes are documented in the
/// README; fields are only ever added.
public enum JSONOutput {
    public static func line(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Console.line sanitizes like every other output: a peer's name cannot reach the
        // terminal as an escape sequence (JSON escapes C0 controls but passes C1 ones through).
        Console.line(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}

/// An optional field of `--json` output: written as `null` when absent (synthesized `Encodable`
/// leaves nil keys out), so every documented key is always there.
public struct OrNull<Wrapped: Encodable>: Encodable {
    public let value: Wrapped?
    public init(_ value: Wrapped?) { self.value = value }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}
