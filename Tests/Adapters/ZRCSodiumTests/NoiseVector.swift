import Foundation
import Testing

/// One entry of the cacophony test vectors (filtered to 25519/ChaChaPoly/BLAKE2b), loaded from
/// the test bundle so tests never read outside the package at run time.
struct NoiseVector: Decodable, Sendable, CustomTestStringConvertible {
    struct Message: Decodable, Sendable {
        let payload: String
        let ciphertext: String
    }

    let protocolName: String
    let initPrologue: String
    let initEphemeral: String
    let initStatic: String?
    let initRemoteStatic: String?
    let initPsks: [String]?
    let respPrologue: String
    let respEphemeral: String?
    let respStatic: String?
    let respRemoteStatic: String?
    let respPsks: [String]?
    let handshakeHash: String
    let messages: [Message]

    var testDescription: String { protocolName }

    /// The pattern part of the name, e.g. "IKpsk2".
    var patternName: String { protocolName.split(separator: "_")[1].description }

    private struct File: Decodable {
        let vectors: [NoiseVector]
    }

    /// All vectors, or the load error (reported by a test instead of silently yielding no cases).
    static let loaded: Result<[NoiseVector], any Error> = Result {
        guard let url = Bundle.module.url(forResource: "noise-25519-chachapoly-blake2b", withExtension: "json",
                                          subdirectory: "Fixtures") else {
            throw CocoaError(.fileNoSuchFile)
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(File.self, from: Data(contentsOf: url)).vectors
    }

    static var all: [NoiseVector] { (try? loaded.get()) ?? [] }
}
