import Foundation
import PropertyBased
import Testing
@testable import ZRCProtocol
import ZRCSodium

/// Pairing by a short code: the code's text, and the host's gate with its three guesses, run with
/// real CPace on libsodium and controllers in memory.
@Suite struct CodePairingTests {
    let group = try! SodiumCPaceGroup()
    static let ci = Array("ZRC pair by code 1".utf8)
    static let sid: [UInt8] = Array(0..<16)
    /// A well-formed controller AD (the gate refuses, uncounted, a run whose AD does not parse).
    static let anyControllerAD = try! ControllerPairingAD(controllerKey: try! SodiumCrypto().generateKeyPair().publicKey, name: "laptop").bytes

    /// A controller's run against `gate` with `code` typed; the gate's confirmation.
    func attempt(_ gate: inout CodePairingGate, run: UInt64, code: PairingCode, now: UInt64 = 0) throws -> CodePairingGate.Confirmation {
        let controller = try CPaceInitiator(prs: code.passwordBytes, ci: Self.ci, sid: Self.sid, ad: Self.anyControllerAD, group: group)
        guard case .respond(let answer) = gate.answer(run: run, message: controller.message, now: now, group: group) else {
            return .refused("not answered")
        }
        let finished = try controller.finish(answer, group: group)
        let keys = CodePairingKeys(key: finished.key, transcript: controller.message + answer, group: group)
        return gate.confirm(run: run, tag: keys.confirmation, now: now)
    }

    static func gate(_ code: PairingCode, expiresAt: UInt64 = 600_000_000) -> CodePairingGate {
        CodePairingGate(code: code, ci: ci, sid: sid, hostAD: Array("host key+name".utf8), expiresAtMicros: expiresAt)
    }

    @Test func aCodeReadsBackAsWrittenWhateverTheSeparators() throws {
        let code = try PairingCode(locator: 42, secret: 83_170_946)
        #expect(code.text.hasPrefix("42-8317-0946-"))
        #expect(try PairingCode(parsing: code.text) == code)
        #expect(try PairingCode(parsing: code.text.replacingOccurrences(of: "-", with: " ")) == code)
        #expect(try PairingCode(parsing: code.text.filter(\.isNumber)) == code)
        #expect(!code.description.contains("8317"), "the secret is never printed")
        #expect(PairingCode.dammCheck([5, 7, 2]) == 4, "the Damm algorithm's worked example")
    }

    /// Every single wrong digit and every swap of two different neighbours is caught by the check
    /// digit, so a typo never costs one of the three guesses.
    @Test func typosAreCaughtBeforeTheyCostAGuess() async {
        await propertyCheck(count: 50, input: Gen.int(in: 0...99), Gen.int(in: 0...99_999_999)) { locator, secret in
            let digits = Array(try PairingCode(locator: locator, secret: secret).text.filter(\.isNumber))
            for index in digits.indices {
                for wrong in "0123456789" where wrong != digits[index] {
                    var typo = digits
                    typo[index] = wrong
                    #expect(throws: PairingCodeError.self) { try PairingCode(parsing: String(typo)) }
                }
                if index + 1 < digits.count, digits[index] != digits[index + 1] {
                    var swapped = digits
                    swapped.swapAt(index, index + 1)
                    #expect(throws: PairingCodeError.self) { try PairingCode(parsing: String(swapped)) }
                }
            }
        }
    }

    @Test(arguments: ["", "42-8317-0946", "42-8317-0946-55", "42-8317-O946-5", "４２-8317-0946-5", "42_8317_0946_5"])
    func malformedCodesAreRefused(text: String) {
        #expect(throws: PairingCodeError.self) { try PairingCode(parsing: text) }
    }

    /// The right code pairs, and both sides hold the same invite ID and secret.
    @Test func theRightCodePairsWithTheSameKeysOnBothSides() throws {
        let code = try PairingCode(locator: 7, secret: 12_345_678)
        var gate = Self.gate(code)
        let controller = try CPaceInitiator(prs: code.passwordBytes, ci: Self.ci, sid: Self.sid, ad: Self.anyControllerAD, group: group)
        guard case .respond(let answer) = gate.answer(run: 1, message: controller.message, now: 0, group: group) else {
            Issue.record("the host did not answer")
            return
        }
        let finished = try controller.finish(answer, group: group)
        let keys = CodePairingKeys(key: finished.key, transcript: controller.message + answer, group: group)
        guard case .paired(let ad, let hostKeys) = gate.confirm(run: 1, tag: keys.confirmation, now: 0) else {
            Issue.record("the right code did not pair")
            return
        }
        #expect(ad == Self.anyControllerAD)
        #expect(finished.peerAD == Array("host key+name".utf8))
        #expect(hostKeys.inviteID == keys.inviteID)
        #expect(hostKeys.secret.constantTimeEquals(keys.secret))
        // A code pairs once.
        #expect(try { if case .refused = try attempt(&gate, run: 2, code: code) { true } else { false } }())
    }

    /// Three wrong codes end the code; the right one is refused after that. A wrong code counts
    /// against that code only.
    @Test func threeWrongCodesEndTheCodeAndOnlyThatCode() throws {
        let code = try PairingCode(locator: 7, secret: 12_345_678)
        let other = try PairingCode(locator: 8, secret: 55_555_555)
        var gate = Self.gate(code)
        var otherGate = Self.gate(other)
        for (run, left) in zip(1...3 as ClosedRange<UInt64>, [2, 1, 0]) {
            guard case .wrongCode(let guessesLeft) = try attempt(&gate, run: run, code: try PairingCode(locator: 7, secret: 12_345_679 + Int(run))) else {
                Issue.record("a wrong code was not counted")
                return
            }
            #expect(guessesLeft == left)
        }
        #expect(gate.state.isEnded(.tooManyWrongCodes))
        guard case .refused = try attempt(&gate, run: 4, code: code) else {
            Issue.record("the right code paired after three wrong ones")
            return
        }
        guard case .paired = try attempt(&otherGate, run: 1, code: other) else {
            Issue.record("another code was affected")
            return
        }
    }

    /// An attacker starting 1,000 runs at once, never confirming: three are answered (each one
    /// guess), the rest are refused before any CPace work, and once they are dropped the code has
    /// ended without pairing.
    @Test func aThousandRunsAnswerThreeAndNeverPair() throws {
        let code = try PairingCode(locator: 1, secret: 1)
        var gate = Self.gate(code)
        let guess = try CPaceInitiator(prs: try PairingCode(locator: 1, secret: 2).passwordBytes, ci: Self.ci, sid: Self.sid, ad: Self.anyControllerAD, group: group)
        var answered = 0
        for run in 1...1000 as ClosedRange<UInt64> {
            if case .respond = gate.answer(run: run, message: guess.message, now: 0, group: group) { answered += 1 }
        }
        #expect(answered == 3)
        for run in 1...1000 as ClosedRange<UInt64> { gate.abandon(run: run, now: 0) }
        #expect(gate.state.isEnded(.tooManyWrongCodes))
    }

    /// Malformed messages and invalid elements are refused and not counted: they test no guess.
    @Test func malformedRunsAreNotCounted() throws {
        let code = try PairingCode(locator: 3, secret: 3)
        var gate = Self.gate(code)
        for run in 1...10 as ClosedRange<UInt64> {
            guard case .refused = gate.answer(run: run, message: [0x20] + [UInt8](repeating: 0, count: 32) + [0], now: 0, group: group) else {
                Issue.record("the identity element was answered")
                return
            }
        }
        guard case .paired = try attempt(&gate, run: 11, code: code) else {
            Issue.record("refused runs were counted against the code")
            return
        }
    }

    @Test func anExpiredCodeAnswersNothing() throws {
        let code = try PairingCode(locator: 4, secret: 4)
        var gate = Self.gate(code, expiresAt: 1_000)
        gate.tick(now: 1_000)
        #expect(gate.state.isEnded(.expired))
        guard case .refused = try attempt(&gate, run: 1, code: code, now: 1_001) else {
            Issue.record("an expired code was answered")
            return
        }
    }
}


extension CodePairingTests {
    /// The whole exchange with the real ADs: the controller ends with the invite the ordinary
    /// pairing uses (host key pinned from ADb, ID and secret derived), the host with the
    /// controller's key and name and the same ID and secret.
    @Test func bothSidesEndWithTheSameInviteAndEachOthersKeys() throws {
        let crypto = try SodiumCrypto()
        let (hostKey, controllerKey) = (crypto.generateKeyPair().publicKey, crypto.generateKeyPair().publicKey)
        let hostAD = try HostPairingAD(hostKey: hostKey, expiresAt: 1_900_000_000, addresses: [InviteAddress(host: "192.0.2.7", port: 7420)],
                                       hostName: "desk", servers: [try ReachURL(parsing: "mqtt://192.0.2.1:1883", expecting: [.mqtt])])
        let controllerAD = try ControllerPairingAD(controllerKey: controllerKey, name: "laptop")
        let code = try PairingCode(locator: 42, secret: 83_170_946)
        var gate = CodePairingGate(code: code, ci: Self.ci, sid: Self.sid, hostAD: hostAD.bytes, expiresAtMicros: 600_000_000)
        let controller = try CPaceInitiator(prs: code.passwordBytes, ci: Self.ci, sid: Self.sid, ad: controllerAD.bytes, group: group)
        guard case .respond(let answer) = gate.answer(run: 1, message: controller.message, now: 0, group: group) else {
            Issue.record("not answered")
            return
        }
        let finished = try controller.finish(answer, group: group)
        let keys = CodePairingKeys(key: finished.key, transcript: controller.message + answer, group: group)
        guard case .paired(let ad, let hostKeys) = gate.confirm(run: 1, tag: keys.confirmation, now: 0) else {
            Issue.record("not paired")
            return
        }
        let invite = try HostPairingAD(parsing: finished.peerAD).invite(keys: keys)
        #expect(invite.hostKey == hostKey)
        #expect(invite.hostName == "desk")
        #expect(invite.inviteID == hostKeys.inviteID)
        #expect(invite.secret.constantTimeEquals(hostKeys.secret))
        #expect(try ControllerPairingAD(parsing: ad) == controllerAD)
    }

    /// ADs a peer could send that are not well formed: each is a clear error.
    @Test(arguments: [[], [2], [1] + [UInt8](repeating: 0, count: 31), [1] + [UInt8](repeating: 9, count: 32) + [65],
                      [1] + [UInt8](repeating: 9, count: 32) + [1, 65, 0], [1] + [UInt8](repeating: 9, count: 32) + [65] + [UInt8](repeating: 97, count: 65)]
                      as [[UInt8]])
    func malformedControllerADsAreRefused(bytes: [UInt8]) {
        #expect(throws: WireError.self) { try ControllerPairingAD(parsing: bytes) }
    }

    @Test(arguments: [[], [1] + [UInt8](repeating: 9, count: 32) + [UInt8](repeating: 0, count: 8) + [0],
                      [1] + [UInt8](repeating: 9, count: 32) + [UInt8](repeating: 0, count: 8) + [9],
                      [1] + [UInt8](repeating: 9, count: 32) + [UInt8](repeating: 0, count: 8) + [1, 1, 65, 0, 1, 0, 9]]
                      as [[UInt8]])
    func malformedHostADsAreRefused(bytes: [UInt8]) {
        #expect(throws: WireError.self) { try HostPairingAD(parsing: bytes) }
    }
}

@Suite struct CodePairingGateADTests {
    /// A run whose controller AD does not parse is refused and costs no guess.
    @Test func aRunWithAMalformedControllerDescriptionIsRefusedUncounted() throws {
        let group = try SodiumCPaceGroup()
        let code = try PairingCode(locator: 3, secret: 4)
        var gate = CodePairingTests.gate(code)
        let bad = try CPaceInitiator(prs: code.passwordBytes, ci: CodePairingTests.ci, sid: CodePairingTests.sid, ad: Array("not an AD".utf8),
                                     group: group)
        guard case .refused(let reason) = gate.answer(run: 1, message: bad.message, now: 0, group: group) else {
            Issue.record("answered a run with a malformed AD")
            return
        }
        #expect(reason.contains("malformed"))
        guard case .waiting(let counted) = gate.state else {
            Issue.record("the gate is \(gate.state)")
            return
        }
        #expect(counted == 0)
    }
}

extension CodePairingGate.State {
    func isEnded(_ ending: CodePairingGate.Ending) -> Bool {
        if case .ended(let actual) = self { actual == ending } else { false }
    }
}

extension CodePairingTests {
    /// The spec's worked example (Schemas/pairing-by-code.md), byte for byte: fixed scalars (the
    /// draft's ya and yb), fixed keys and names.
    @Test func theSpecsWorkedExampleIsReproduced() throws {
        let code = try PairingCode(parsing: Self.example.code)
        let ci = code.channelIdentifier
        let sid = [UInt8](hex: Self.example.sid)
        let controllerAD = try ControllerPairingAD(controllerKey: try NoisePublicKey(hex: Self.example.controllerKey), name: "laptop")
        let hostAD = try HostPairingAD(hostKey: try NoisePublicKey(hex: Self.example.hostKey), expiresAt: 1_900_000_000,
                                       addresses: [InviteAddress(host: "192.0.2.7", port: 7420)], hostName: "desk", servers: [])
        let controller = try CPaceInitiator(prs: code.passwordBytes, ci: ci, sid: sid, ad: controllerAD.bytes, group: group,
                                            scalar: SecretBytes([UInt8](hex: Self.example.ya)))
        var gate = CodePairingGate(code: code, ci: ci, sid: sid, hostAD: hostAD.bytes, expiresAtMicros: .max)
        guard case .respond(let answer) = gate.answer(run: 1, message: controller.message, now: 0, group: group,
                                                      scalar: SecretBytes([UInt8](hex: Self.example.yb))) else {
            Issue.record("not answered")
            return
        }
        let keys = CodePairingKeys(key: try controller.finish(answer, group: group).key, transcript: controller.message + answer, group: group)
        #expect(ci.hex == "125a5243207061697220627920636f64652031023432")
        #expect(controller.message.hex == "20caebab8cac4db159c6735fca47292a83dc40e5110c48908de69c36c5c8a3b10728"
            + "01" + String(repeating: "11", count: 32) + "066c6170746f70")
        #expect(answer.hex == "20422d68170d3682f6a6d5cfbc20bf2acbd46d56fb1f8849aabe01e2bacd2ca9613c"
            + "01" + String(repeating: "22", count: 32) + "00000000713fb30001093139322e302e322e371cfc046465736b00")
        #expect(keys.confirmation.hex == "48430cf47d2824d286bd6594ff31b836a02523288fb6b44221bcc4c2c204e60b")
        #expect(keys.inviteID.bytes.hex == "717a00874b7b3a389f9ac0d4b1a2281e")
        #expect(keys.secret.copyBytes().hex == "9b5d5644ee4d73f26252c167e74a6915")
    }

    static let example = (code: "42-8317-0946-6", sid: "000102030405060708090a0b0c0d0e0f",
                          controllerKey: String(repeating: "11", count: 32), hostKey: String(repeating: "22", count: 32),
                          ya: "DA3D23700A9E5699258AEF94DC060DFDA5EBB61F02A5EA77FAD53F4FF0976D08",
                          yb: "D2316B454718C35362D83D69DF6320F38578ED5984651435E2949762D900B80D")
}

extension CodePairingTests {
    /// The meeting point's token: the same for the same locator and day, different for another
    /// locator or day, and independent of the secret.
    @Test func meetingPointsDependOnLocatorAndDayOnly() throws {
        let code = try PairingCode(locator: 42, secret: 83_170_946)
        let sameLocator = try PairingCode(locator: 42, secret: 1)
        let token = PairingMeetingPoint.token(code: code, day: 20_000, group: group)
        #expect(token.count == 16)
        #expect(token == PairingMeetingPoint.token(code: sameLocator, day: 20_000, group: group))
        #expect(token != PairingMeetingPoint.token(code: code, day: 20_001, group: group))
        #expect(token != PairingMeetingPoint.token(code: try PairingCode(locator: 43, secret: 83_170_946), day: 20_000, group: group))
        let run: [UInt8] = Array(100..<116)
        #expect(PairingMeetingPoint.run(inControllerTopic: PairingMeetingPoint.controllerTopic(token: token, run: run), token: token) == run)
        #expect(PairingMeetingPoint.run(inControllerTopic: PairingMeetingPoint.hostTopic(token: token, run: run), token: token) == nil)
        #expect(PairingMeetingPoint.run(inControllerTopic: PairingMeetingPoint.topic(token: token) + "/a/ABCD", token: token) == nil)
    }

    @Test(arguments: [
        PairingMeetingMessage.announcement(sid: Array(0..<16), expiresAt: 1_900_000_000), .start([0x20] + Array(repeating: 1, count: 33)),
        .answer([1, 2, 3]), .confirm(Array(repeating: 7, count: 32)), .outcome(.wrongCode, reason: "wrong code"),
    ])
    func meetingMessagesRoundTrip(message: PairingMeetingMessage) throws {
        #expect(try PairingMeetingMessage(decoding: message.bytes) == message)
    }

    /// What anyone at a broker could publish: each is an error, never a crash or a large allocation.
    @Test(arguments: [[], [1], [2, 1], [1, 1] + Array(repeating: 0, count: 15), [1, 2, 0xFF, 0xFF], [1, 4] + Array(repeating: 0, count: 31),
                      [1, 5, 3, 0], [1, 6], [1, 1] + Array(repeating: 0, count: 24) + [9]] as [[UInt8]])
    func malformedMeetingMessagesAreRefused(bytes: [UInt8]) {
        #expect(throws: WireError.self) { try PairingMeetingMessage(decoding: bytes) }
    }
}

extension CodePairingTests {
    /// The host's side at a meeting point, as the host's driver will do it: a start gets an
    /// answer, a confirmation an outcome.
    static func host(_ gate: inout CodePairingGate, run: UInt64, _ message: PairingMeetingMessage, group: some CPaceGroup) -> PairingMeetingMessage? {
        switch message {
        case .start(let start):
            switch gate.answer(run: run, message: start, now: 0, group: group) {
            case .respond(let answer): return .answer(answer)
            case .refused(let reason): return .outcome(.refused, reason: reason)
            }
        case .confirm(let tag):
            switch gate.confirm(run: run, tag: tag, now: 0) {
            case .paired: return .outcome(.paired, reason: "")
            case .wrongCode(let left): return .outcome(.wrongCode, reason: "\(left) tries left")
            case .refused(let reason): return .outcome(.refused, reason: reason)
            }
        case .announcement, .answer, .outcome:
            return nil
        }
    }

    /// Controllers and a host exchanging meeting-point messages (through their byte form, as a
    /// broker would carry them): the right code pairs with one invite on both sides; a wrong code
    /// is told so, and a hostile reason is cleaned before anyone shows it.
    @Test(arguments: [true, false])
    func aControllerRunPairsOnlyWithTheRightCode(right: Bool) throws {
        let crypto = try SodiumCrypto()
        let code = try PairingCode(locator: 5, secret: 24_681_357)
        let hostAD = try HostPairingAD(hostKey: crypto.generateKeyPair().publicKey, expiresAt: 1_900_000_000,
                                       addresses: [InviteAddress(host: "192.0.2.7", port: 7420)], hostName: "desk", servers: [])
        let sid = Array(200..<216).map(UInt8.init)
        var gate = CodePairingGate(code: code, ci: code.channelIdentifier, sid: sid, hostAD: hostAD.bytes, expiresAtMicros: .max)
        let typed = right ? code : try PairingCode(locator: 5, secret: 24_681_358)
        var run = CodePairingRun(code: typed, controllerAD: try ControllerPairingAD(controllerKey: crypto.generateKeyPair().publicKey, name: "laptop"))
        var incoming: PairingMeetingMessage? = .announcement(sid: sid, expiresAt: 1_900_000_000)
        var outcome: CodePairingRun.Step?
        for _ in 0..<6 {
            guard let message = incoming else { break }
            let step = run.receive(try PairingMeetingMessage(decoding: message.bytes), group: group)
            switch step {
            case .publish(let published):
                incoming = Self.host(&gate, run: 1, try PairingMeetingMessage(decoding: published.bytes), group: group)
            case .ignore:
                incoming = nil
            case .paired, .failed:
                outcome = step
                incoming = nil
            }
        }
        switch outcome {
        case .paired(let invite):
            #expect(right)
            guard case .paired(_, let keys) = gate.state else {
                Issue.record("the host did not pair")
                return
            }
            #expect(invite.inviteID == keys.inviteID && invite.secret.constantTimeEquals(keys.secret))
        case .failed(let reason):
            #expect(!right, "\(reason)")
            #expect(reason.contains("did not accept this code"))
        case .publish, .ignore, nil:
            Issue.record("the run did not end")
        }
        // A hostile reason (an escape sequence) is cleaned.
        var hostile = CodePairingRun(code: code, controllerAD: try ControllerPairingAD(controllerKey: crypto.generateKeyPair().publicKey, name: "x"))
        _ = hostile.receive(.announcement(sid: sid, expiresAt: 0), group: group)
        guard case .failed(let reason) = hostile.receive(.outcome(.refused, reason: "\u{1B}]52;c;AAAA\u{07}gone"), group: group) else {
            Issue.record("a refusal did not end the run")
            return
        }
        #expect(!reason.contains("\u{1B}"))
    }
}
