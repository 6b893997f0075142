import PropertyBased
import Testing
import ZRCTestSupport
@testable import ZRCProtocol

@Suite struct InviteTests {
    static func makeInvite(
        addresses: [InviteAddress] = [InviteAddress(host: "192.168.1.20", port: 47_800)], hostName: String = "studio"
    ) throws(WireError) -> Invite {
        try Invite(
            hostKey: try! NoisePublicKey(bytes: Array(0..<32)), inviteID: try InviteID(bytes: Array(0xA0...0xAF)),
            secret: SecretBytes(Array(0xF0...0xFF)), expiresAt: 1_767_225_600, addresses: addresses, hostName: hostName)
    }

    static let example =
        "zrc1-aeagowiaaebagbafaydqqcikbmga2dqpcaireeyuculbogazdinryhi6d6qkdivduss2nj5ivgvkxlfnv2x7b4ps6p2pl5xx7d47v6747x7p6aaaaaagsvnzaaaqymjzgixdcnryfyys4mrqxk4am43uovsgs3zhhzoks"

    /// The worked example in Schemas/wire-protocol.md.
    @Test func workedExample() throws {
        let invite = try Self.makeInvite()
        #expect(invite.text == Self.example)
        #expect(try Invite(parsing: Self.example) == invite)
    }

    static let inviteGenerator = Generator<Invite, Shrink.None<Invite>> { rng in
        let addresses = (0..<Int.random(in: 1...8, using: &rng)).map { _ in
            InviteAddress(host: randomHost(&rng), port: UInt16.random(in: 1...65535, using: &rng))
        }
        return try! Invite(
            hostKey: try! NoisePublicKey(bytes: RandomValues.bytes(32, &rng)),
            inviteID: try! InviteID(bytes: RandomValues.bytes(16, &rng)),
            secret: SecretBytes(RandomValues.bytes(16, &rng)), expiresAt: RandomValues.int(&rng),
            addresses: addresses, hostName: RandomValues.string(&rng, maxBytes: 255))
    }

    @Test func roundTrips() async {
        await propertyCheck(count: 200, input: Self.inviteGenerator) { invite in
            let text = invite.text
            #expect(text.hasPrefix("zrc1-"))
            #expect(text.utf8.allSatisfy { Array("abcdefghijklmnopqrstuvwxyz234567-".utf8).contains($0) || $0 == 0x31 })
            let parsed = try Invite(parsing: text)
            #expect(parsed == invite)
        }
    }

    @Test func toleratesUpperCaseAndLineBreaks() throws {
        var text = Self.example.uppercased()
        text.insert(contentsOf: "\n  ", at: text.index(text.startIndex, offsetBy: 40))
        text.insert(contentsOf: "\r\n", at: text.index(text.startIndex, offsetBy: 90))
        #expect(try Invite(parsing: " " + text + "\n") == Invite(parsing: Self.example))
    }

    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")

    /// Every single mistyped character after the prefix is reported as damage, never accepted.
    @Test func everyMistypedCharacterIsDamage() throws {
        let characters = Array(Self.example)
        for position in 5..<characters.count {
            for shift in [1, 7, 16, 31] {
                var damaged = characters
                let value = Self.alphabet.firstIndex(of: characters[position])!
                damaged[position] = Self.alphabet[(value + shift) % 32]
                let error = wireError { () throws(WireError) in try Invite(parsing: String(damaged)) }
                #expect(error?.kind == .damagedInvite, "position \(position): \(error?.message ?? "accepted")")
            }
        }
    }

    @Test func mistypedCharactersInRandomInvites() async {
        await propertyCheck(count: 200, input: Self.inviteGenerator, Generators.seed) { invite, seed in
            var rng = SplitMix64(seed: seed)
            var characters = Array(invite.text)
            let position = Int.random(in: 5..<characters.count, using: &rng)
            let value = Self.alphabet.firstIndex(of: characters[position])!
            characters[position] = Self.alphabet[(value + Int.random(in: 1...31, using: &rng)) % 32]
            #expect(errorKind { () throws(WireError) in try Invite(parsing: String(characters)) } == .damagedInvite)
        }
    }

    @Test(arguments: ["0", "1", "8", "9", "!", "é", "="])
    func invalidCharactersAreDamage(character: String) {
        var text = Self.example
        text.insert(contentsOf: character, at: text.index(text.startIndex, offsetBy: 20))
        let error = wireError { () throws(WireError) in try Invite(parsing: text) }
        #expect(error?.kind == .damagedInvite)
        #expect(error?.message.contains("position 21") == true, "\(error?.message ?? "")")
    }

    /// Every copy that stopped short is reported as truncated.
    @Test func everyPrefixIsTruncated() {
        for count in 5..<Self.example.count {
            let error = wireError { () throws(WireError) in try Invite(parsing: String(Self.example.prefix(count))) }
            #expect(error?.kind == .truncatedInvite, "\(count) characters: \(error?.message ?? "accepted")")
        }
    }

    @Test(arguments: ["a", "aa", "aaaaaaaa"])
    func extraCharactersAreDamage(extra: String) {
        #expect(errorKind { () throws(WireError) in try Invite(parsing: Self.example + extra) } == .damagedInvite)
    }

    @Test(arguments: ["", "hello", "https://example.com", "zrc-abc", "zrcx-abc", "zrc1", "zrc1abc", "ssh-ed25519 AAAA", "zrc–1-abc"])
    func notAnInvite(text: String) {
        #expect(errorKind { () throws(WireError) in try Invite(parsing: text) } == .notAnInvite)
    }

    @Test(arguments: ["zrc3-aaaa", "zrc0-", "zrc10-" + String(Self.example.dropFirst(5)), "ZRC3-abc"])
    func unknownVersion(text: String) {
        let error = wireError { () throws(WireError) in try Invite(parsing: text) }
        #expect(error?.kind == .unknownInviteVersion)
        #expect(error?.message.contains("upgrade zrc-ctl") == true)
    }

    /// A checksum-valid invite with impossible content (made by a faulty host) is damage too.
    @Test func validChecksumInvalidContent() {
        var body = ByteWriter()
        body.write(bytes: [UInt8](repeating: 0, count: 32 + 16 + 16 + 8))
        body.write(UInt8(0))  // no addresses
        body.write(bytes: [0, 0, 0, 0])  // padding to the minimum length
        body.write(shortString: "")
        let error = wireError { () throws(WireError) in try Invite(parsing: Self.inviteText(body: body)) }
        #expect(error?.kind == .damagedInvite)
        #expect(error?.message.contains("address count") == true, "\(error?.message ?? "")")
    }

    /// A host name, IPv4 or IPv6 literal of 1…253 bytes, from everything a host may contain.
    static func randomHost(_ rng: inout some RandomNumberGenerator) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._:%éü日本")
        var host = ""
        for _ in 0..<Int.random(in: 1...80, using: &rng) {
            let next = alphabet[Int.random(in: 0..<alphabet.count, using: &rng)]
            if host.utf8.count + String(next).utf8.count > 253 { break }
            host.append(next)
        }
        return host
    }

    /// A checksum-valid invite with one address whose host is `host` (made by a faulty or hostile host).
    static func inviteText(host: String) -> String {
        var body = ByteWriter()
        body.write(bytes: [UInt8](repeating: 7, count: 32 + 16 + 16) + [0, 0, 0, 0, 0x70, 0, 0, 0])
        body.write(UInt8(1))
        body.write(shortString: host)
        body.write(UInt16(7420))
        body.write(shortString: "desk")
        return inviteText(body: body)
    }

    /// The text of an invite with `body` (everything after the header) and correct checksums.
    static func inviteText(body: ByteWriter) -> String {
        let total = 4 + body.count + 4
        var bytes: [UInt8] = [1, UInt8(total >> 8), UInt8(total & 0xFF)]
        bytes.append(CRC8.checksum(bytes))
        bytes += body.bytes
        bytes += be32(CRC32.checksum(bytes))
        return "zrc1-" + Base32.encode(bytes)
    }

    /// Addresses reach error messages, logs and `zrc-ctl devices`: one with control characters,
    /// escape sequences, whitespace or invisible characters makes the invite damaged.
    @Test(arguments: ["evil\u{1B}[2J", "a b", "tab\there", "new\nline", "rtl\u{202E}moc", "zero\u{200B}width",
                      "bell\u{07}", "c1\u{9B}31m", "slash/path", "[::1]", "user@host", String(repeating: "a", count: 254)])
    func addressesThatAreNoHostMakeTheInviteDamaged(host: String) {
        let error = wireError { () throws(WireError) in try Invite(parsing: Self.inviteText(host: host)) }
        #expect(error?.kind == .damagedInvite, "\(host.debugDescription): \(error?.message ?? "accepted")")
        #expect(error.map { TerminalSafeText.isSafe($0.message) } ?? true, "the message repeats no unsafe character")
    }

    @Test(arguments: ["192.0.2.7", "desk.local", "2001:db8::1", "fe80::1%eth0", "my_host-1", "bücher.example"])
    func hostsAndAddressesAreAccepted(host: String) throws {
        let invite = try Invite(parsing: Self.inviteText(host: host))
        #expect(invite.addresses.map(\.host) == [host])
    }

    @Test func constructionChecksLimits() throws {
        #expect(errorKind { () throws(WireError) in try Self.makeInvite(addresses: []) } == .invalidValue)
        let nine = (1...9).map { InviteAddress(host: "h\($0)", port: 1) }
        #expect(errorKind { () throws(WireError) in try Self.makeInvite(addresses: nine) } == .invalidValue)
        #expect(errorKind { () throws(WireError) in try Self.makeInvite(addresses: [.init(host: "", port: 1)]) } == .invalidValue)
        #expect(errorKind { () throws(WireError) in try Self.makeInvite(addresses: [.init(host: "h", port: 0)]) } == .invalidValue)
        let longName = String(repeating: "n", count: 256)
        #expect(errorKind { () throws(WireError) in try Self.makeInvite(hostName: longName) } == .invalidValue)
        let eight = (1...8).map { InviteAddress(host: String(repeating: "x", count: 252) + "\($0)", port: 65535) }
        let largest = try Self.makeInvite(addresses: eight, hostName: String(repeating: "n", count: 255))
        #expect(try Invite(parsing: largest.text) == largest)
    }

    @Test func expiry() throws {
        let invite = try Self.makeInvite()
        #expect(!invite.isExpired(atUnixSeconds: 1_767_225_599))
        #expect(invite.isExpired(atUnixSeconds: 1_767_225_600))
    }

    @Test func garbageNeverCrashes() async {
        let text = Generator<String, Shrink.None<String>> { rng in
            let symbols = Array("abcdefghijklmnopqrstuvwxyz234567")
            return "zrc1-" + String((0..<Int.random(in: 0...300, using: &rng)).map { _ in symbols.randomElement(using: &rng)! })
        }
        await propertyCheck(count: 500, input: text) { text in
            #expect(errorKind { () throws(WireError) in try Invite(parsing: text) } != nil)
        }
    }

    @Test func addressDescriptionBracketsIPv6() {
        #expect(InviteAddress(host: "fe80::1", port: 22).description == "[fe80::1]:22")
        #expect(InviteAddress(host: "host.lan", port: 22).description == "host.lan:22")
    }
}

@Suite struct CodecTests {
    @Test(arguments: [("", ""), ("f", "my"), ("fo", "mzxq"), ("foo", "mzxw6"), ("foob", "mzxw6yq"), ("fooba", "mzxw6ytb"),
                      ("foobar", "mzxw6ytboi")])
    func base32Vectors(plain: String, encoded: String) throws {
        #expect(Base32.encode(Array(plain.utf8)) == encoded)
        let decoded = try Base32.decodeLeniently(Array(encoded.uppercased().utf8))
        #expect(decoded.bytes == Array(plain.utf8))
        #expect(decoded.isCanonical)
    }

    @Test(arguments: ["m", "mzx", "mzxw6y", "mz", "mzxw7"])
    func nonCanonicalBase32(text: String) throws {
        // Impossible lengths (1, 3, 6 mod 8) or non-zero unused bits.
        #expect(try !Base32.decodeLeniently(Array(text.utf8)).isCanonical)
    }

    @Test func base32RoundTrip() async {
        await propertyCheck(input: Generators.bytes) { bytes in
            let decoded = try Base32.decodeLeniently(Array(Base32.encode(bytes).utf8))
            #expect(decoded.bytes == bytes)
            #expect(decoded.isCanonical)
        }
    }

    @Test func checksumVectors() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
        #expect(CRC8.checksum(Array("123456789".utf8)) == 0xF4)
    }
}

@Suite struct InviteServersTests {
    static let servers = try! [
        ReachURL(parsing: "mqtt://broker.example:1883", expecting: [.mqtt]),
        ReachURL(parsing: "turn://zrc:pw@100.64.0.1:3478?transport=tcp", expecting: [.turn]),
        ReachURL(parsing: "stun:100.64.0.1", expecting: [.stun]),
    ]

    @Test func format2CarriesTheHostsServers() throws {
        let invite = try Invite(hostKey: try NoisePublicKey(bytes: Array(0..<32)), inviteID: try InviteID(bytes: Array(0xA0...0xAF)),
                                secret: SecretBytes(Array(0xF0...0xFF)), expiresAt: 1_767_225_600,
                                addresses: [InviteAddress(host: "192.168.1.20", port: 7420)], hostName: "studio", servers: Self.servers)
        #expect(invite.text.hasPrefix("zrc2-"))
        let parsed = try Invite(parsing: invite.text)
        #expect(parsed == invite)
        #expect(parsed.servers.map(\.text) == Self.servers.map(\.text))
    }

    /// Without servers the invite stays format 1, which older controllers read.
    @Test func withoutServersItStaysFormat1() throws {
        #expect(try InviteTests.makeInvite().text.hasPrefix("zrc1-"))
    }
}
