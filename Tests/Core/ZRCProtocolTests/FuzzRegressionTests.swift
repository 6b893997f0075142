import Foundation
import Testing
@testable import ZRCProtocol

/// Inputs of the libFuzzer targets (Tools/fuzz.sh, Fuzz/Targets/TARGET.swift), replayed the way
/// each harness feeds them. Every case must only not crash; the harnesses' own invariants stay
/// with the fuzzer. A crash the fuzzer finds becomes a case here: its target and the saved input
/// as base64 (`base64 -w0 .build/fuzz/crashes/TARGET/crash-…`). The seeds (Fuzz/Seeds, up to 300
/// bytes) keep the replay honest while no crash is listed.
@Suite struct FuzzRegressionTests {
    static let cases: [(target: String, base64: String)] = [
        // Crashes found by fuzzing: none in these targets so far.
        // Seeds:
        ("record", "AQEAAAAxAgcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwMAAAACAAgCAAAB"),  // handshake-reject-partial
        ("record", "AwIAAAAJAQAAABwBAAEAAgAAAAkAAAAJABN6cmMCAAAACQAtY3RsLzAuMQIAAAAJAiAobGludXgp"),  // hello-chunks-of-3
        ("record", "AAIAAAAWAwAAABECAAAAAAAAAAEAAAAAAAABAg=="),  // ping-one-feed
        ("record", "BwIAAAAmWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlo="),  // schema-example
        ("message", "BAAEAANieWU="),  // close
        ("message", "FP////8AAAAUAQAAAAE="),  // cursor-position
        ("message", "EwAAAAEAAgACAAEAAAAAABAAAQIDBAUGBwgJCgsMDQ4P"),  // cursor-shape
        ("message", "BQABAAl2aWV3LW9ubHk="),  // error
        ("message", "EgAAAAAAAAABAAAAAAAAAAIAAAAAAAAAAw=="),  // frame-ack
        ("message", "AQABAAAACQATenJjLWN0bC8wLjEgKGxpbnV4KQ=="),  // hello
        ("message", "IAIBAP////8AAAAC"),  // input-button
        ("message", "IAQAAP8NAQAD"),  // input-key
        ("message", "IAEAAAAKAAAAFA=="),  // input-move
        ("message", "IAMAAP//AAAABQAAAAU="),  // input-scroll
        ("message", "IAUACmjDqWxsbyDinJM="),  // input-text
        ("message", "CQAGc3R1ZGlv"),  // pair-accepted
        ("message", "CAAGbGFwdG9w"),  // pair-request
        ("message", "AgAAAAAAAAABAAAAAAAAAQI="),  // ping
        ("message", "AwAAAAAAAAABAAAAAAAAAQIAAAAAAAABLA=="),  // pong
        ("message", "EQAAAAAAAAABAAAAAAAAAAIAAAAAAAAAAwAAAAAAAAAEAAAAQAAAACAAAAEAAAAAAAIAAgMAAAAQAAECAwQFBgcICQoLDA0ODw=="),  // raw
        ("message", "EAAAB4AAAAQ4AAZIRE1JLTE="),  // screen-info (0x10, reserved: an unknown type now)
        ("message", "EQAAAAAAAAABAAAAAAAAAAIAAAAAAAAAAwAAAAAAAAAEAAACgAAAAeAAAAEAAQACAAMABAIA/4AA"),  // solid
        ("message", "MAAAAAAAAAXcAAB1MAAAAAAAEAAAUA=="),  // stats
        ("message", "QAAYdGV4dC9wbGFpbjtjaGFyc2V0PXV0Zi04AAAAFmNvcGllZCDinJMKc2Vjb25kIGxpbmU="),  // clipboard
        ("message", "QAEYdGV4dC9wbGFpbjtjaGFyc2V0PXV0Zi04AAAAAXg="),  // clipboard-primary
        ("message", "QQA="),  // clipboard-request
        ("message", "BgERMTk4LjUxLjEwMC43OjM0NzgbMTc2NDM3NDQwMDp6cmMtMGExYjJjM2Q0ZTVmGFZHaHBjeUJwY3lCaElIQmhjM04zYjNKawAAAABpKjeA"),  // relay-credentials
        ("message", "EQAAAAAAAAABAAAAAAAAAAIAAAAAAAAAAwAAAAAAAAAEAAAAQAAAACAAAAEAAAAAAEAAHwUAAAAB"),  // copy
        ("message", "EQAAAAAAAAABAAAAAAAAAAIAAAAAAAAAAwAAAAAAAAAEAAAAQAAAACAAAAEABAAEABAACAQAAAAZKLUv/QBIhAAAUAABIDBA8ODQAP8BAMkOCQ=="),  // lossless
        ("message", "EQAAAAAAAAABAAAAAAAAAAIAAAAAAAAAAwAAAAAAAAAEAAAAQAAAACAAAAEABAAEABAACAYAAAAZKLUv/SAYhQAAUAABIDBA8ODQAP8BAMkOCQ=="),  // lossless-frame
        ("message", "MQAAAAAAJiWgAAAAAAAATiAAAAAAAAALuAABAAA="),  // link-stats
        ("message", "FQUAAtAAAAAAB4AEOA=="),  // picture-request
        ("message", "FgAAB4AAAAQ4AAAAAAeABDgFAALQ"),  // picture-mapping
        ("message", "GADy5wMykAMAAWTIAQcNBAzAwcLDxMXGx8jJyss="),  // compact-keystroke
        ("message", "GAMHAQIAAgACAAEAAAICAxAAAQIDBAUGBwgJCgsMDQ4P"),  // compact-raw
        ("message", "GAPAhD0ykAMCgAHgAAIBAgMEAv+AAAAAQB8FAAE="),  // compact-solid
        ("rendezvous", "AAECAAZEnE+NISAQERITFBUWFxgZGhscHR4fAARBYjErFjAxMjM0NTY3ODlhYmNkZWZnaGlqa2wDAH7///8BMQgxMC4xLjAuMreZAWT///8BMg0xOTguNTEuMTAwLjIw7l4DAP///wEzCzIwMDE6ZGI4Ojo3w1A="),  // answer
        ("rendezvous", "AAECAAAAAAAAAAEQERITFBUWFxgZGhscHR4fAgRBYjErFjAxMjM0NTY3ODlhYmNkZWZnaGlqa2wDAH7///8BMQgxMC4xLjAuMreZAWT///8BMg0xOTguNTEuMTAwLjIw7l4DAP///wEzCzIwMDE6ZGI4Ojo3w1ABETE5OC41MS4xMDAuNzozNDc4GzE3NjQzNzQ0MDA6enJjLTBhMWIyYzNkNGU1ZgxjR0Z6YzNkdmNtUT0AAAAAaSo3gA=="),  // answer-relays
        ("rendezvous", "AVpSVgHg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4AECAAAAAAAAAAEQERITFBUWFxgZGhscHR4fAgRBYjErFjAxMjM0NTY3ODlhYmNkZWZnaGlqa2wDAH7///8BMQgxMC4xLjAuMreZAWT///8BMg0xOTguNTEuMTAwLjIw7l4DAP///wEzCzIwMDE6ZGI4Ojo3w1ABETE5OC41MS4xMDAuNzozNDc4GzE3NjQzNzQ0MDA6enJjLTBhMWIyYzNkNGU1ZgxjR0Z6YzNkdmNtUT0AAAAAaSo3gAAAAAAAAAAAAAAAAAAAAAA="),  // answer-relays-sealed
        ("rendezvous", "AVpSVgHg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4AECAAZEnE+NISAQERITFBUWFxgZGhscHR4fAARBYjErFjAxMjM0NTY3ODlhYmNkZWZnaGlqa2wDAH7///8BMQgxMC4xLjAuMreZAWT///8BMg0xOTguNTEuMTAwLjIw7l4DAP///wEzCzIwMDE6ZGI4Ojo3w1AAAAAAAAAAAAAAAAAAAAAA"),  // answer-sealed
        ("rendezvous", "AAECAAAAAAAAAAIQERITFBUWFxgZGhscHR4fAQ=="),  // busy
        ("rendezvous", "AVpSVgHg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4AECAAAAAAAAAAIQERITFBUWFxgZGhscHR4fAQAAAAAAAAAAAAAAAAAAAAA="),  // busy-sealed
        ("rendezvous", "AAEBAAZEnE+FgAAQERITFBUWFxgZGhscHR4fICEiIyQlJicoKSorLC0uLwEEQWIxKxYwMTIzNDU2Nzg5YWJjZGVmZ2hpamtsAwB+////ATEIMTAuMS4wLjK3mQFk////ATINMTk4LjUxLjEwMC4yMO5eAwD///8BMwsyMDAxOmRiODo6N8NQ"),  // offer
        ("rendezvous", "AVpSVgHg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4AEBAAZEnE+FgAAQERITFBUWFxgZGhscHR4fICEiIyQlJicoKSorLC0uLwEEQWIxKxYwMTIzNDU2Nzg5YWJjZGVmZ2hpamtsAwB+////ATEIMTAuMS4wLjK3mQFk////ATINMTk4LjUxLjEwMC4yMO5eAwD///8BMwsyMDAxOmRiODo6N8NQAAAAAAAAAAAAAAAAAAAAAA=="),  // offer-sealed
        ("reassembler", "AwAIAQAAABECAAAACAAAAAAAAAEAAAgCAAAAAAABAg=="),  // fragments-0
        ("reassembler", "AwAIAQAAAAgEAAQABgIAA2J5ZQ=="),  // fragments-1
        ("reassembler", "AwAIAQAAAEkRAAAACAAAAAAAAAEAAAgAAAAAAAAAAgAIAAAAAAAAAAAACAADAAAAAAAAAAgAAAQAAABAAAAIAAAAIAAAAQAACAAAAAAAAgACAAgAAwAAABAAAQAIAAIDBAUGBwgACAIJCgsMDQ4P"),  // fragments-2
        ("reassembler", "AAAWAwAAABECAAAAAAAAAAEAAAAAAAABAg=="),  // single-0
        ("reassembler", "AQANAwAAAAgEAAQAA2J5ZQ=="),  // single-1
        ("reassembler", "AgBOAwAAAEkRAAAAAAAAAAEAAAAAAAAAAgAAAAAAAAADAAAAAAAAAAQAAABAAAAAIAAAAQAAAAAAAgACAwAAABAAAQIDBAUGBwgJCgsMDQ4P"),  // single-2
        ("invite", "AQABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4foKGio6SlpqeoqaqrrK2ur/Dx8vP09fb3+Pn6+/z9/v8AAAAAaVW5AAIMMTkyLjE2OC4xLjIwurgHZmU4MDo6MQABBnN0dWRpbw=="),  // fields
        ("invite", "AHpyYzEtYWVhaGNveWFhZWJhZ2JhZmF5ZHFxY2lrYm1nYTJkcXBjYWlyZWV5dWN1bGJvZ2F6ZGlucnloaTZkNnFrZGl2ZHVzczJuajVpdmd2a3hsZm52Mng3YjRwczZwMnBsNXh4N2Q0N3Y2NzQ3eDdwNmFhYWFhYWdzdm56YWFiYXltanpnaXhkY25yeWZ5eXM0bXJxeGs0YW96dGZoYXlkdW9ycmFhYXFtNDN1b3ZzZ3MzenQ3dDZqbw=="),  // text
        ("invite", "AFpSQzEtQUVBSENPWUFBRUIgCkFHQkFGQVlEUVFDSUtCTUcgCkEyRFFQQ0FJUkVFWVVDVUwgCkJPR0FaRElOUllISTZENlEgCktESVZEVVNTMk5KNUlWR1YgCktYTEZOVjJYN0I0UFM2UDIgClBMNVhYN0Q0N1Y2NzQ3WDcgClA2QUFBQUFBR1NWTlpBQUIgCkFZTUpaR0lYRENOUllGWVkgClM0TVJRWEs0QU9aVEZIQVkgCkRVT1JSQUFBUU00M1VPVlMgCkdTM1pUN1Q2Sk8="),  // text-spaced-upper
        ("handshake", "BgBWWlJDUAABAAABAAAASeDg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODgAAEAAAAAAAAABwAAAAAACWZ1enotaG9zdAAAAAAAAAAAAAAAAAAAAAACAAAAJgMAAAAREAAAB4AAAAQ4AAZIRE1JLTEAAAAAAAAAAAAAAAAAAAAAAgAAAE4DAAAAOREAAAAAAAAAAQAAAAAAAAACAAAAAAAAAAMAAAAAAAAABAAAAoAAAAHgAAABAAEAAgADAAQCAP+AAAAAAAAAAAAAAAAAAAAAAAA="),  // controller-pair
        ("handshake", "BQBWWlJDUAABAAABAAAASeDg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODgAAEAAAAAAAAABwAAAAAACWZ1enotaG9zdAAAAAAAAAAAAAAAAAAAAAACAAAAJgMAAAAREAAAB4AAAAQ4AAZIRE1JLTEAAAAAAAAAAAAAAAAAAAAAAgAAAE4DAAAAOREAAAAAAAAAAQAAAAAAAAACAAAAAAAAAAMAAAAAAAAABAAAAoAAAAHgAAABAAEAAgADAAQCAP+AAAAAAAAAAAAAAAAAAAAAAAA="),  // controller-session
        ("handshake", "BACdWlJDUAABAAABAAAAkAGgoaKjpKWmp6ipqqusra6v4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4OAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAAAAAAAAAAAAAAAAAAAAAABAAAAAAAAAAGgoaKjpKWmp6ipqqusra6vAARmdXp6AAAAAAAAAAAAAAAAAAAAAAIAAAAxAwAAABwBAAEAAAAJABN6cmMtY3RsLzAuMSAobGludXgpAAAAAAAAAAAAAAAAAAAAAAIAAAAeAwAAAAkgBQAFdHlwZWQAAAAAAAAAAAAAAAAAAAAA"),  // host-pair
        ("handshake", "BACBWlJDUAABAAABAAAAdALg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4CAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgAAAAAAAAAAAAAAAAAAAAAAIAAAAAAAAAAQAAAAAABGZ1enoAAAAAAAAAAAAAAAAAAAAAAgAAADEDAAAAHAEAAQAAAAkAE3pyYy1jdGwvMC4xIChsaW51eCkAAAAAAAAAAAAAAAAAAAAAAgAAAB4DAAAACSAFAAV0eXBlZAAAAAAAAAAAAAAAAAAAAAA="),  // host-session
        ("handshake", "AAEAAAAAAAAAAaChoqOkpaanqKmqq6ytrq8AAWM="),  // payload-1-pair
        ("handshake", "AAIAAAAAAAAABQAAAAEAAA=="),  // payload-1-session
        ("handshake", "AQABAAAAAAAAAKsAAAABAAFo"),  // payload-2
        ("handshake", "AgGgoaKjpKWmp6ipqqusra6v4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4OAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAAAAAAAAAAAAAAAAAAAAAABAAAAAAAAAAGgoaKjpKWmp6ipqqusra6vAARmdXp6AAAAAAAAAAAAAAAAAAAAAA=="),  // record-1-pair
        ("handshake", "AgLg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4CAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgAAAAAAAAAAAAAAAAAAAAAAIAAAAAAAAAAQAAAAAABGZ1enoAAAAAAAAAAAAAAAAAAAAA"),  // record-1-session
        ("handshake", "AwAJ"),  // reject
    ]

    /// Must only not crash.
    @Test(arguments: cases)
    func replay(target: String, base64: String) throws {
        let input = [UInt8](try #require(Data(base64Encoded: base64)))
        guard let first = input.first else { return }
        let rest = Array(input.dropFirst())
        switch target {
        case "record": Self.record(rest, chunkSize: Int(first))
        case "message":
            _ = try? ZRCMessage.decode(([0xA5] + input)[1...])
            _ = (try? ZRCMessage.decode(input))?.encode()
        case "reassembler": Self.reassembler(rest, first: first)
        case "invite": Self.invite(rest, binary: first & 1 == 1)
        case "handshake": Self.handshake(rest, mode: first % 7)
        case "rendezvous": Self.rendezvous(rest, sealed: first & 1 == 1)
        default: Issue.record("no replay for target \(target)")
        }
    }

    /// As `Fuzz/Targets/rendezvous.swift`: the payload, or a sealed message opened with the
    /// transparent crypto; whatever opens is sealed again.
    static func rendezvous(_ bytes: [UInt8], sealed: Bool) {
        let host = try! TransparentCrypto().keyPair(privateKey: SecretBytes([UInt8](repeating: 0x10, count: 32)))
        let controller = try! TransparentCrypto().keyPair(privateKey: SecretBytes([UInt8](repeating: 0x20, count: 32)))
        let topic = "zrc/v1/in/00112233445566778899aabbccddeeff"
        let message = sealed
            ? try? RendezvousSeal.open(bytes, topic: topic, recipient: host, sender: controller.publicKey, crypto: TransparentCrypto())
            : try? RendezvousMessage(decoding: bytes)
        guard let message else { return }
        _ = try? RendezvousSeal.seal(message, topic: topic, sender: controller, recipient: host.publicKey, crypto: TransparentCrypto())
    }

    static func record(_ stream: [UInt8], chunkSize: Int) {
        for size in [max(stream.count, 1), max(chunkSize, 1)] {
            var decoder = RecordDecoder()
            for start in stride(from: 0, to: max(stream.count, 1), by: size) {
                guard (try? decoder.feed(stream[start..<min(start + size, stream.count)])) != nil else { break }
            }
        }
    }

    static func reassembler(_ bytes: [UInt8], first: UInt8) {
        let limit = [1, 17, WireLimits.maxControllerMessageLength, WireLimits.defaultMaxMessageLength][Int(first) % 4]
        var reassembler = MessageReassembler(maxMessageLength: limit)
        for plaintext in pieces(bytes[...]) {
            let message: [UInt8]?
            do {
                message = try reassembler.add(Array(plaintext)).map { Array($0) }
            } catch {
                _ = try? reassembler.add([0x03, 0, 0, 0, 1, 0x02])
                return
            }
            guard let message else { continue }
            var again = MessageReassembler(maxMessageLength: limit)
            for fragment in MessageFragmenter(maxPlaintextLength: 7 + Int(first >> 2)).fragments(of: message) {
                _ = try? again.add(fragment)
            }
        }
    }

    static func invite(_ bytes: [UInt8], binary: Bool) {
        var text = binary ? "" : String(decoding: bytes, as: UTF8.self)
        if binary, bytes.count + 8 <= Int(UInt16.max) {
            var framed: [UInt8] = [Invite.formatVersion, UInt8((bytes.count + 8) >> 8), UInt8((bytes.count + 8) & 0xFF)]
            framed.append(CRC8.checksum(framed))
            framed += bytes
            var writer = ByteWriter()
            writer.write(CRC32.checksum(framed))
            text = Invite.textPrefix + Base32.encode(framed + writer.bytes)
        }
        guard let invite = try? Invite(parsing: text) else { return }
        _ = try? Invite(parsing: invite.text)
    }

    static func handshake(_ bytes: [UInt8], mode: UInt8) {
        let crypto = TransparentCrypto()
        let key = { (seed: UInt8) in try! crypto.keyPair(privateKey: SecretBytes([UInt8](repeating: seed, count: 32))) }
        let (head, tail) = split(bytes[...])
        switch mode {
        case 0: _ = try? HandshakeInitPayload.decode(bytes)
        case 1: _ = try? HandshakeResponsePayload.decode(bytes)
        case 2: _ = try? HandshakeInitiation.decode(bytes)
        case 3: _ = HandshakeRejection.decode(bytes)
        case 4:
            var host = HostHandshake()
            guard let initiation = try? host.receive(head) else { return }
            let secret = SecretBytes(Array(0xF0...0xFF))
            let psk = initiation.inviteID.map { KeyDerivations.pairingPSK(inviteID: $0, secret: secret, crypto: crypto) }
            do {
                var responder = try host.respond(localStatic: key(0x10), psk: psk, crypto: crypto)
                _ = try responder.accept(HandshakeResponsePayload(sessionID: 7, granted: [], hostName: "fuzz-host"))
                var channel = try responder.establish()
                _ = try channel.open(tail)
            } catch {}
        default:
            let purpose: ControllerHandshake.Purpose =
                mode == 6 ? .pair(inviteID: try! InviteID(bytes: Array(0xA0...0xAF)), secret: SecretBytes(Array(0xF0...0xFF)))
                : .session(requested: [])
            do {
                var controller = try ControllerHandshake(
                    purpose: purpose, localStatic: key(0x20), hostKey: key(0x10).publicKey, timestampMicros: 1, agent: "fuzz",
                    crypto: crypto)
                guard try controller.receive(head) != nil else { return }
                var channel = try controller.establish()
                _ = try channel.open(tail)
            } catch {}
        }
    }

    /// Pieces each behind a big-endian u16 length, as Fuzz/Support/Harness.swift cuts them.
    static func pieces(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var pieces: [ArraySlice<UInt8>] = []
        var rest = bytes
        while rest.count >= 2 {
            let length = Int(rest[rest.startIndex]) << 8 | Int(rest[rest.startIndex + 1])
            pieces.append(rest.dropFirst(2).prefix(length))
            rest = rest.dropFirst(2 + length)
        }
        return pieces
    }

    static func split(_ bytes: ArraySlice<UInt8>) -> (ArraySlice<UInt8>, ArraySlice<UInt8>) {
        guard let piece = pieces(bytes).first else { return (bytes.prefix(0), bytes.prefix(0)) }
        return (piece, bytes.dropFirst(2 + piece.count))
    }
}

/// Fuzz/Support/TransparentCrypto.swift, for the handshake replay: AEAD is the identity plus an
/// unchecked tag, DH and hash outputs are constant, so every record authenticates.
private struct TransparentCrypto: NoiseCrypto {
    var dhName: String { "25519" }
    var cipherName: String { "ChaChaPoly" }
    var hashName: String { "BLAKE2b" }
    var hashLength: Int { 64 }
    var blockLength: Int { 128 }
    func generateKeyPair() -> NoiseKeyPair { try! keyPair(privateKey: SecretBytes([UInt8](repeating: 0xE0, count: 32))) }
    func publicKey(forPrivateKey privateKey: SecretBytes) throws(NoiseError) -> NoisePublicKey {
        try NoisePublicKey(bytes: privateKey.copyBytes())
    }
    func validatePublicKey(_ publicKey: NoisePublicKey) throws(NoiseError) {}
    func dh(privateKey: SecretBytes, publicKey: NoisePublicKey) throws(NoiseError) -> SecretBytes { .zeros(count: 32) }
    func encrypt(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], plaintext: [UInt8]) -> [UInt8] {
        plaintext + [UInt8](repeating: 0, count: 16)
    }
    func decrypt(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], ciphertext: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard ciphertext.count >= 16 else { throw NoiseError(.messageTooShort, "shorter than the tag") }
        return Array(ciphertext.dropLast(16))
    }
    func encryptInPlace(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], buffer: UnsafeMutableRawBufferPointer) {
        UnsafeMutableRawBufferPointer(rebasing: buffer[(buffer.count - 16)...]).initializeMemory(as: UInt8.self, repeating: 0)
    }
    func decryptInPlace(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], buffer: UnsafeMutableRawBufferPointer) throws(NoiseError) {
        guard buffer.count >= 16 else { throw NoiseError(.messageTooShort, "shorter than the tag") }
    }
    func hash(_ parts: [UnsafeRawBufferPointer], into output: UnsafeMutableRawBufferPointer) {
        output.initializeMemory(as: UInt8.self, repeating: 0)
    }
}
