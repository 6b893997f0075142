import Foundation
import Testing
@testable import ZRCKeyStore
import ZRCProtocol

@Suite("Key text encoding")
struct KeyTextTests {
    @Test("encoding matches Foundation's base64 and decodes back", arguments: [0, 1, 2, 3, 4, 31, 32, 33, 64])
    func roundTrip(count: Int) throws {
        let key = TestServices.randomKey(count: count)
        let expected = key.withUnsafeBytes { Data($0).base64EncodedString() }
        let text = KeyText.withEncoded(key) { String(decoding: $0, as: UTF8.self) }
        #expect(text == expected)
        let decoded = KeyText.withEncoded(key, suffix: "\n") { KeyText.decode($0) }
        if count == 0 {
            #expect(decoded == nil, "empty text is not a key")
        } else {
            #expect(decoded?.constantTimeEquals(key) == true)
        }
    }

    @Test("invalid base64 is rejected", arguments: ["A", "AB", "ABC", "A===", "AB=C", "AB C", "ABC*", "=AAA", "AA==AA=="])
    func rejects(text: String) {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBufferPointer { KeyText.decode($0) } == nil)
    }
}
