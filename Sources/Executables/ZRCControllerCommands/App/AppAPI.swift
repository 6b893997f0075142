import Foundation
import ZRCWebViewerKit

/// The JSON of the app's API: requests decoded strictly (bounded by the gate's body limit),
/// answers encoded with sorted keys and ISO 8601 dates. An error answer is
/// `{"error": TEXT, "field": NAME|null}` with status 400 (the caller's input), 404 (no such
/// call), 409 (the state does not allow it) or 500.
enum AppAPI {
    struct Failure: Error {
        let status: Int
        let message: String
        let field: String?

        init(_ status: Int, _ message: String, field: String? = nil) {
            self.status = status
            self.message = message
            self.field = field
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8]) throws(Failure) -> T {
        // An empty body is an empty object: calls without arguments may send nothing.
        let bytes = body.isEmpty ? Array("{}".utf8) : body
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch let DecodingError.keyNotFound(key, _) {
            throw Failure(400, "`\(key.stringValue)` is missing", field: key.stringValue)
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            let field = context.codingPath.last?.stringValue
            throw Failure(400, "`\(field ?? "request")` has the wrong type", field: field)
        } catch {
            throw Failure(400, "the request is not the JSON this call takes")
        }
    }

    static func answer(_ value: some Encodable, status: Int = 200) -> PageAPIResponse {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return failure(Failure(500, "the answer could not be encoded")) }
        return PageAPIResponse(status: status, json: Array(data))
    }

    static func failure(_ failure: Failure) -> PageAPIResponse {
        struct Body: Encodable {
            let error: String
            let field: String?
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(error, forKey: .error)
                try container.encode(field, forKey: .field)
            }
            enum CodingKeys: String, CodingKey { case error, field }
        }
        let data = (try? JSONEncoder().encode(Body(error: failure.message, field: failure.field))) ?? Data("{}".utf8)
        return PageAPIResponse(status: failure.status, json: Array(data))
    }

    /// `{}`.
    struct Empty: Codable {}
}
