import Foundation

/// Decoding and encoding of ZRC's JSON files, turning Foundation's decoding errors into messages
/// that name the file and the field.
public enum JSONDocument {
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], path: String) throws(StorageError) -> T {
        let decoder = JSONDecoder()
        do {
            return try decoder.decode(T.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw describe(error, path: path)
        } catch {
            throw StorageError(.invalid, path: path, reason: "cannot be read: \(error)")
        }
    }

    public static func encode<T: Encodable>(_ value: T, path: String) throws(StorageError) -> [UInt8] {
        let encoder = JSONEncoder()
        // Dates are written as RFC 3339 strings by their owners (`InternetDateTime`), not by a
        // strategy that would load ICU's time-zone data.
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(value)) + [0x0A]
        } catch {
            throw StorageError(.io, path: path, reason: "cannot encode: \(error)")
        }
    }

    static func describe(_ error: DecodingError, path: String) -> StorageError {
        switch error {
        case .typeMismatch(let type, let context):
            return StorageError(.invalid, path: path, field: fieldPath(context.codingPath),
                                reason: "expected \(typeName(type))")
        case .valueNotFound(let type, let context):
            return StorageError(.invalid, path: path, field: fieldPath(context.codingPath),
                                reason: "expected \(typeName(type)), found null")
        case .keyNotFound(let key, let context):
            return StorageError(.invalid, path: path, field: fieldPath(context.codingPath + [key]),
                                reason: "required field is missing")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                // Foundation reports JSON syntax errors this way; its underlying error has the position.
                let detail = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
                return StorageError(.invalid, path: path, reason: "is not valid JSON (\(detail ?? context.debugDescription))")
            }
            return StorageError(.invalid, path: path, field: fieldPath(context.codingPath), reason: context.debugDescription)
        @unknown default:
            return StorageError(.invalid, path: path, reason: "\(error)")
        }
    }

    /// `hosts[1].publicKey` from a coding path.
    static func fieldPath(_ codingPath: [any CodingKey]) -> String {
        var result = ""
        for key in codingPath {
            if let index = key.intValue {
                result += "[\(index)]"
            } else {
                result += result.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return result.isEmpty ? "(top level)" : result
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Int.Type, is UInt64.Type, is UInt16.Type, is Int64.Type, is UInt32.Type: return "an integer"
        case is Double.Type: return "a number"
        case is Date.Type: return "an ISO 8601 date-time string"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "a value of type \(name)"
        }
    }
}

/// Rejects fields a schema does not allow, so a typo in a hand-edited file is reported instead of
/// silently ignored.
struct AnyCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue; intValue = nil }
    init?(intValue: Int) { stringValue = String(intValue); self.intValue = intValue }
}

extension Decoder {
    func rejectUnknownKeys<Key: CodingKey & CaseIterable>(_ keys: Key.Type) throws {
        let container = try container(keyedBy: AnyCodingKey.self)
        let allowed = Set(Key.allCases.map(\.stringValue))
        for key in container.allKeys where !allowed.contains(key.stringValue) {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription: "unknown field (allowed: \(allowed.sorted().joined(separator: ", ")))")
        }
    }
}
