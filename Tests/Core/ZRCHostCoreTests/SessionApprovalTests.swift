import Testing
import ZRCHostCore
import ZRCProtocol

/// A session waiting for the person at the host (`approveSessions`), on a fake clock: nothing
/// reaches the host before it is accepted; refused or late, it closes.
@Suite struct SessionApprovalTests {
    static func ms(_ value: UInt64) -> UInt64 { value * 1000 }

    static func policy(viewOnly: Bool = false) -> HostSessionMachine.Policy {
        .init(helloTimeoutMicros: ms(5000), viewOnlyGrant: viewOnly, acceptsInput: true,
              clipboard: .init(selections: [.clipboard], inViewOnlySessions: true), approvalTimeoutMicros: ms(60_000))
    }

    static func hello(_ capabilities: Capabilities) -> ZRCMessage {
        .hello(protocolVersion: WireLimits.protocolVersion, capabilities: capabilities, agent: "test")
    }

    static let asked: [HostSessionAction] = [
        .askApproval(viewOnly: false),
        .send(.error(code: .awaitingApproval, text: "waiting for the person at the host to accept this session (up to 60 s)")),
    ]

    /// A machine whose hello arrived at 0 ms and now waits for approval.
    static func waiting(_ policy: HostSessionMachine.Policy = policy()) -> HostSessionMachine {
        var machine = HostSessionMachine(policy: policy, now: 0)
        _ = machine.received(hello([.jpegRects]), now: 0)
        return machine
    }

    @Test func theHelloAsksThePersonAtTheHostAndTellsTheController() {
        var machine = HostSessionMachine(policy: Self.policy(), now: 0)
        #expect(machine.received(Self.hello([.jpegRects, .clipboard]), now: Self.ms(10)) == Self.asked)
        #expect(!machine.hasControl)
        #expect(!machine.mayUseClipboard)
        #expect(machine.nextWake(now: Self.ms(10), stream: .init()) == .events(untilMicros: Self.ms(60_010), thenGlanceAtScreen: false))
    }

    @Test(arguments: [
        ZRCMessage.input(.key(keysym: 0x61, pressed: true, modifiers: [])),
        .input(.pointerMove(x: 1, y: 1)),
        .clipboard(ClipboardContent(selection: .clipboard, mimeType: ClipboardContent.utf8Text, data: Array("secret".utf8))),
        .clipboardRequest(.clipboard),
        .frameAck(frameID: 1, receivedMicros: 0, decodedMicros: 0),
        .hello(protocolVersion: WireLimits.protocolVersion, capabilities: [.jpegRects], agent: "again"),
        .pong(id: 1, pingSentAtMicros: 0, receivedAtMicros: 0),
    ])
    func nothingTheControllerSendsReachesTheHostBeforeItIsAccepted(message: ZRCMessage) {
        var machine = Self.waiting()
        #expect(machine.received(message, now: Self.ms(5)).isEmpty)
        #expect(machine.tick(now: Self.ms(59_999), stream: .init()).isEmpty, "and it still waits")
    }

    @Test func acceptedTheSessionBeginsWithThePictureAskedForMeanwhile() {
        var machine = Self.waiting()
        let first = PictureRequest(maxWidth: 50, maxHeight: 50)
        let newest = PictureRequest(maxWidth: 100, maxHeight: 100)
        #expect(machine.received(.pictureRequest(first), now: Self.ms(1)).isEmpty)
        #expect(machine.received(.pictureRequest(newest), now: Self.ms(2)).isEmpty)
        #expect(machine.approvalAnswered(accepted: true, now: Self.ms(3))
            == [.begin(capabilities: [.jpegRects], agent: "test"), .showPicture(newest)])
        machine.controlGranted()
        #expect(machine.hasControl)
        #expect(machine.received(.input(.key(keysym: 0x61, pressed: true, modifiers: [])), now: Self.ms(4))
            == [.inject(.key(keysym: 0x61, pressed: true, modifiers: []))])
        #expect(machine.tick(now: Self.ms(120_000), stream: .init()).isEmpty, "no approval deadline once accepted")
        #expect(machine.approvalAnswered(accepted: false, now: Self.ms(5)).isEmpty, "a late answer changes nothing")
    }

    @Test func refusedTheSessionCloses() {
        var machine = Self.waiting()
        #expect(machine.approvalAnswered(accepted: false, now: Self.ms(3)) == [.close(.policyRefused, text: "the person at the host refused this session")])
        #expect(machine.approvalAnswered(accepted: true, now: Self.ms(4)).isEmpty, "closing: an accept after the refusal changes nothing")
        #expect(!machine.hasControl)
    }

    @Test func unansweredTheSessionClosesAtTheDeadlineAndNotBefore() {
        var machine = Self.waiting()
        #expect(machine.tick(now: Self.ms(59_999), stream: .init()).isEmpty)
        #expect(machine.tick(now: Self.ms(60_000), stream: .init())
            == [.close(.policyRefused, text: "nobody at the host accepted this session within 60 s")])
        #expect(machine.tick(now: Self.ms(61_000), stream: .init()).isEmpty, "closing once")
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let viewOnly: Bool
        let capabilities: Capabilities
        let asks: Bool
        var testDescription: String { "\(viewOnly ? "view-only" : "control") \(capabilities.rawValue) asks=\(asks)" }
    }

    @Test(arguments: [
        Case(viewOnly: false, capabilities: [], asks: true),  // in control: always asks
        Case(viewOnly: true, capabilities: [.jpegRects], asks: true),  // watching the screen
        Case(viewOnly: true, capabilities: [.clipboard], asks: true),  // reading the clipboard
        Case(viewOnly: true, capabilities: [.copyRects], asks: true),  // any rect encoding
        Case(viewOnly: true, capabilities: [], asks: false),  // a ping or presence probe observes nothing
        Case(viewOnly: true, capabilities: [.linkStats, .monitors], asks: false),
    ])
    func onlySessionsThatObserveOrControlAsk(_ example: Case) {
        var machine = HostSessionMachine(policy: Self.policy(viewOnly: example.viewOnly), now: 0)
        let actions = machine.received(Self.hello(example.capabilities), now: Self.ms(1))
        if example.asks {
            #expect(actions.first == .askApproval(viewOnly: example.viewOnly))
        } else {
            #expect(actions == [.begin(capabilities: example.capabilities, agent: "test")])
        }
    }

    @Test func withoutApprovalTheHelloBeginsAtOnce() {
        var policy = Self.policy()
        policy.approvalTimeoutMicros = nil
        var machine = HostSessionMachine(policy: policy, now: 0)
        #expect(machine.received(Self.hello([.jpegRects]), now: Self.ms(1)) == [.begin(capabilities: [.jpegRects], agent: "test")])
    }
}
