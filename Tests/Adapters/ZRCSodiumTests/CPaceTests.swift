import Foundation
import Testing
@testable import ZRCProtocol
import ZRCSodium

/// CPace against the draft's vectors for ristretto255 and SHA-512 (draft-irtf-cfrg-cpace-21,
/// suite `G_Coffee25519`, copied into Fixtures), then the ways a run must fail.
@Suite struct CPaceTests {
    struct Fixture: Decodable {
        struct Points: Decodable {
            let valid: [String: String]
            let invalidY1: String
            let invalidY2: String

            enum CodingKeys: String, CodingKey {
                case valid = "Valid", invalidY1 = "Invalid Y1", invalidY2 = "Invalid Y2"
            }
        }

        let vectors: [String: String]
        let points: Points

        func bytes(_ key: String) -> [UInt8] { [UInt8](hex: vectors[key] ?? "") }

        static func load() throws -> Fixture {
            guard let url = Bundle.module.url(forResource: "cpace-ristretto255-sha512", withExtension: "json", subdirectory: "Fixtures") else {
                throw CocoaError(.fileNoSuchFile)
            }
            return try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
        }
    }

    let group = try! SodiumCPaceGroup()

    /// The draft's prepend_len and lv_cat examples, and lengths around a LEB128 byte boundary.
    @Test func lengthValueConcatenationIsTheDrafts() {
        #expect(CPace.lengthValueConcatenation([Array("1234".utf8), Array("5".utf8), [], Array("678".utf8)])
            == [UInt8](hex: "043132333401350003363738"))
        #expect(CPace.lengthPrefix(0) == [0x00])
        #expect(CPace.lengthPrefix(127) == [0x7F])
        #expect(CPace.lengthPrefix(128) == [0x80, 0x01])
        #expect(CPace.lengthPrefix(300) == [0xAC, 0x02])
    }

    /// Every value of the vector: the generator string and its hash (from the draft's text), g,
    /// Ya, Yb, K both ways, and ISK_IR on both sides.
    @Test func theDraftsVectorIsReproduced() throws {
        let fixture = try Fixture.load()
        let prs = SecretBytes(fixture.bytes("PRS"))
        let (ci, sid) = (fixture.bytes("CI"), fixture.bytes("sid"))
        let generatorString = CPace.generatorString(prs: fixture.bytes("PRS"), ci: ci, sid: sid)
        #expect(generatorString == [UInt8](hex: "11435061636552697374726574746f3235350850617373776f726464" + String(repeating: "00", count: 100)
            + "180b415f696e69746961746f720b425f726573706f6e646572107e4b4791d6a8ef019b936c79fb7f2c57"))
        #expect(group.sha512([generatorString]) == [UInt8](hex:
            "da6d3ddc8802fca9058755ffd3ebde08a9c2c74945901a258482a288b6663af06bf645c93cd1c51512307199c80e84908916d983b34af77205f90851a657ee27"))
        #expect(CPace.generator(prs: prs, ci: ci, sid: sid, group: group) == fixture.bytes("g"))

        let initiator = try CPaceInitiator(prs: prs, ci: ci, sid: sid, ad: fixture.bytes("ADa"), group: group, scalar: SecretBytes(fixture.bytes("ya")))
        #expect(initiator.message == [0x20] + fixture.bytes("Ya") + [0x03] + fixture.bytes("ADa"))
        let responder = try CPaceResponder.respond(to: initiator.message, prs: prs, ci: ci, sid: sid, ad: fixture.bytes("ADb"), group: group,
                                                    scalar: SecretBytes(fixture.bytes("yb")))
        #expect(responder.message == [0x20] + fixture.bytes("Yb") + [0x03] + fixture.bytes("ADb"))
        #expect(group.multiply(SecretBytes(fixture.bytes("ya")), fixture.bytes("Yb"))?.copyBytes() == fixture.bytes("K"))
        #expect(group.multiply(SecretBytes(fixture.bytes("yb")), fixture.bytes("Ya"))?.copyBytes() == fixture.bytes("K"))
        let finished = try initiator.finish(responder.message, group: group)
        #expect(finished.key.copyBytes() == fixture.bytes("ISK_IR"))
        #expect(responder.key.copyBytes() == fixture.bytes("ISK_IR"))
        #expect(finished.peerAD == fixture.bytes("ADb"))
        #expect(responder.peerAD == fixture.bytes("ADa"))
    }

    /// The draft's point vectors: a valid product, and both invalid encodings refused (one that
    /// does not decode, and the identity), as the peer's element on either side.
    @Test func invalidElementsEndTheRun() throws {
        let fixture = try Fixture.load()
        let valid = fixture.points.valid
        #expect(group.multiply(SecretBytes([UInt8](hex: valid["s"]!)), [UInt8](hex: valid["X"]!))?.copyBytes()
            == [UInt8](hex: valid["G.scalar_mult_vfy(s,X)"]!))
        let prs = SecretBytes(Array("Password".utf8))
        for invalid in [fixture.points.invalidY1, fixture.points.invalidY2] {
            let bad = [0x20] + [UInt8](hex: invalid) + [0x00]
            #expect(throws: CPaceError.self) { try CPaceResponder.respond(to: bad, prs: prs, ci: [], sid: [1], ad: [], group: group) }
            let initiator = try CPaceInitiator(prs: prs, ci: [], sid: [1], ad: [], group: group)
            #expect(throws: CPaceError.self) { try initiator.finish(bad, group: group) }
        }
    }

    /// Random runs: the same PRS gives both sides one key; any difference in PRS, CI or sid gives
    /// different keys, and the ADs arrive as sent.
    @Test(arguments: ["prs", "ci", "sid", nil] as [String?])
    func keysAgreeOnlyWhenEverythingMatches(differing: String?) throws {
        let prs = SecretBytes(Array("42-8317-0946".utf8))
        let initiator = try CPaceInitiator(prs: prs, ci: Array("zrc".utf8), sid: [1, 2, 3], ad: Array("controller".utf8), group: group)
        let responder = try CPaceResponder.respond(
            to: initiator.message, prs: differing == "prs" ? SecretBytes(Array("42-8317-0947".utf8)) : prs,
            ci: differing == "ci" ? Array("zrd".utf8) : Array("zrc".utf8), sid: differing == "sid" ? [1, 2, 4] : [1, 2, 3],
            ad: Array("host".utf8), group: group)
        let finished = try initiator.finish(responder.message, group: group)
        #expect(finished.key.constantTimeEquals(responder.key) == (differing == nil))
        #expect(finished.peerAD == Array("host".utf8))
        #expect(responder.peerAD == Array("controller".utf8))
    }

    /// Messages a peer could send that are not `lv_cat(Y, AD)`: each is refused, never a crash.
    @Test(arguments: [
        [], [0x20], [0x1F] + [UInt8](repeating: 1, count: 33), [0x20] + [UInt8](repeating: 1, count: 32),
        [0x20] + [UInt8](repeating: 1, count: 32) + [0x05, 1, 2], [0x20] + [UInt8](repeating: 1, count: 32) + [0x01, 1, 2],
        [0x20] + [UInt8](repeating: 1, count: 32) + [0x80, 0x00], [0x20] + [UInt8](repeating: 1, count: 32) + [0xFF, 0xFF, 0xFF, 0x7F],
        [0x20] + [UInt8](repeating: 1, count: 32) + [0x81, 0x40] + [UInt8](repeating: 0, count: 8193),
    ] as [[UInt8]])
    func malformedMessagesAreRefused(message: [UInt8]) {
        #expect(throws: CPaceError.self) { try CPace.parse(message) }
    }
}
