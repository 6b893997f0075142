import Testing
import ZRCHostCore
import ZRCProtocol

/// The session's life on a fake clock (milliseconds): hello deadline, roles, budgets, messages.
@Suite struct HostSessionMachineTests {
    static func ms(_ value: UInt64) -> UInt64 { value * 1000 }

    static func policy(viewOnly: Bool = false, input: Bool = true,
                       clipboard: HostSessionMachine.ClipboardPolicy? = .init(selections: [.clipboard], inViewOnlySessions: false))
        -> HostSessionMachine.Policy {
        .init(helloTimeoutMicros: ms(5000), viewOnlyGrant: viewOnly, acceptsInput: input, clipboard: clipboard)
    }

    static let hello = ZRCMessage.hello(protocolVersion: WireLimits.protocolVersion, capabilities: [.jpegRects], agent: "test")

    /// A machine whose hello arrived at 0 ms and whose control claim went as `granted`.
    static func established(_ policy: HostSessionMachine.Policy = policy(), granted: Bool = true) -> HostSessionMachine {
        var machine = HostSessionMachine(policy: policy, now: 0)
        _ = machine.received(hello, now: 0)
        if granted, !policy.viewOnlyGrant { machine.controlGranted() }
        return machine
    }

    @Test func withoutAHelloTheSessionClosesAtTheDeadlineAndNotBefore() {
        var machine = HostSessionMachine(policy: Self.policy(), now: Self.ms(100))
        #expect(machine.nextWake(now: Self.ms(100), stream: .init()) == .events(untilMicros: Self.ms(5100), thenGlanceAtScreen: false))
        #expect(machine.tick(now: Self.ms(5099), stream: .init()).isEmpty)
        let actions = machine.tick(now: Self.ms(5100), stream: .init())
        guard case .close(.timeout, let text)? = actions.first else {
            Issue.record("expected a timeout close, got \(actions)")
            return
        }
        #expect(text.contains("no hello within"))
        #expect(machine.tick(now: Self.ms(9000), stream: .init()).isEmpty, "closing once")
    }

    @Test(arguments: [ZRCMessage.ping(id: 1, sentAtMicros: 0), .frameAck(frameID: 1, receivedMicros: 0, decodedMicros: 0),
                      .input(.key(keysym: 0x61, pressed: true, modifiers: []))])
    func anythingButHelloFirstIsAProtocolError(first: ZRCMessage) {
        var machine = HostSessionMachine(policy: Self.policy(), now: 0)
        let actions = machine.received(first, now: Self.ms(1))
        #expect(actions.count == 1)
        guard case .close(.protocolError, _)? = actions.first else {
            Issue.record("expected a protocol error, got \(actions)")
            return
        }
        #expect(machine.received(Self.hello, now: Self.ms(2)).isEmpty, "closing: the hello comes too late")
    }

    @Test func theHelloBeginsTheSessionOnceAndEndsTheDeadline() {
        var machine = HostSessionMachine(policy: Self.policy(), now: 0)
        #expect(machine.received(Self.hello, now: Self.ms(10)) == [.begin(capabilities: [.jpegRects], agent: "test")])
        #expect(machine.received(Self.hello, now: Self.ms(11)).isEmpty, "a repeated hello changes nothing")
        #expect(machine.tick(now: Self.ms(60_000), stream: .init()).isEmpty, "no deadline once established")
        #expect(!machine.hasControl, "claiming until the driver grants control")
        machine.controlGranted()
        #expect(machine.hasControl)
    }

    @Test func losingTheClaimClosesOrDemotesByPolicy() {
        var refused = Self.established(granted: false)
        #expect(refused.controlRefused(demote: false, now: Self.ms(1)) == [.close(.policyRefused, text: "another controller took control first")])
        #expect(!refused.hasControl)

        var demoted = Self.established(granted: false)
        #expect(demoted.controlRefused(demote: true, now: Self.ms(1))
            == [.send(.error(code: .inputRefused, text: "another controller took control first: this session is view-only"))])
        #expect(demoted.isViewOnly)
        let actions = demoted.received(.input(.key(keysym: 0x61, pressed: true, modifiers: [])), now: Self.ms(2))
        #expect(actions == [.send(.error(code: .inputRefused, text: "this session is view-only; input is ignored"))])
    }

    @Test func aControllingSessionsEndStillKnowsItHeldControl() {
        var machine = Self.established()
        _ = machine.close(.revoked, text: "revoked")
        #expect(machine.hasControl)
        machine.connectionEnded()
        #expect(machine.hasControl, "its end releases the keys it held")
        var watcher = Self.established(Self.policy(viewOnly: true))
        watcher.connectionEnded()
        #expect(!watcher.hasControl, "a watcher leaving must not release the controller's keys")
    }

    @Test func inputIsInjectedUpToItsBudgetAndTheNoticesAreBoundedToo() {
        var machine = Self.established()
        let key = ZRCMessage.input(.key(keysym: 0x61, pressed: true, modifiers: []))
        var injected = 0
        var notices = 0
        // 10 000 events within one millisecond: the burst (4000) goes, then one notice per refusal
        // within the notice budget's burst (40).
        for _ in 0..<10_000 {
            for action in machine.received(key, now: Self.ms(1)) {
                switch action {
                case .inject: injected += 1
                case .send(.error(code: .overloaded, _)): notices += 1
                default: Issue.record("unexpected \(action)")
                }
            }
        }
        #expect(injected == Int(2 * SessionBudgets.inputPerSecond))
        #expect(notices == Int(2 * SessionBudgets.noticesPerSecond))
        // A second later the budget has refilled at 2000 events/s.
        let later = (0..<3000).flatMap { _ in machine.received(key, now: Self.ms(1001)) }.filter { if case .inject = $0 { true } else { false } }
        #expect(later.count == Int(SessionBudgets.inputPerSecond))
    }

    @Test func aHostWithoutInputSaysSo() {
        var machine = Self.established(Self.policy(input: false))
        #expect(machine.received(.input(.pointerMove(x: 1, y: 1)), now: 1)
            == [.send(.error(code: .unsupported, text: "this host does not accept input"))])
    }

    @Test func acknowledgementsReachTheFrameStream() {
        var machine = Self.established()
        #expect(machine.received(.frameAck(frameID: 7, receivedMicros: 0, decodedMicros: 0), now: 1) == [.acknowledgeFrame(7)])
    }

    @Test(arguments: [ZRCMessage.ping(id: 1, sentAtMicros: 0), .frameUpdate(FrameUpdate(frameID: 1, captureMicros: 0, encodeDoneMicros: 0, sendMicros: 0, screenWidth: 1, screenHeight: 1, quality: 0, rects: [])),
                      .linkStats(LinkStats(deliveryRate: 0, roundTripMicros: 0, queueMicros: 0, inFlightBytes: 0))])
    func messagesOnlyAHostSendsAreUnsupported(message: ZRCMessage) {
        var machine = Self.established()
        #expect(machine.received(message, now: 1) == [.send(.error(code: .unsupported, text: "this host does not handle \(message.type) messages"))])
    }

    @Test func aPictureRequestIsPassedOnOnceAndOnlyWhileStreaming() {
        var machine = Self.established()
        let request = PictureRequest(maxWidth: 640, maxHeight: 480)
        #expect(machine.received(.pictureRequest(request), now: 1).isEmpty, "no frames yet")
        machine.startStreaming(.init())
        #expect(machine.received(.pictureRequest(request), now: 2) == [.showPicture(request)])
        #expect(machine.received(.pictureRequest(request), now: 3).isEmpty, "the same request again")
    }

    /// Who may read and set which selection: (view-only grant, watchers allowed, selection, setting) → the refusal's text, or nil.
    static let clipboardCases: [(Bool, Bool, ClipboardSelection, Bool, String?)] = [
        (false, false, .clipboard, true, nil),
        (false, false, .clipboard, false, nil),
        (false, false, .primary, false, "this host does not share its primary selection"),
        (true, false, .clipboard, false, "this session is view-only, and the host does not let watchers read its clipboard"),
        (true, false, .clipboard, true, "this session is view-only, and the host does not let watchers set its clipboard"),
        (true, true, .clipboard, false, nil),
        (true, true, .clipboard, true, "this session is view-only: watchers may read the host's clipboard, never set it"),
    ]

    @Test(arguments: clipboardCases)
    func clipboardAccessFollowsRoleAndPolicy(viewOnly: Bool, watchersAllowed: Bool, selection: ClipboardSelection, setting: Bool, refusal: String?) {
        var machine = Self.established(Self.policy(viewOnly: viewOnly,
                                                   clipboard: .init(selections: [.clipboard], inViewOnlySessions: watchersAllowed)))
        let content = ClipboardContent.text("hello", selection: selection)
        let actions = machine.received(setting ? .clipboard(content) : .clipboardRequest(selection), now: 1)
        if let refusal {
            #expect(actions == [.send(.error(code: setting ? .clipboardRefused : .clipboardUnavailable, text: refusal))])
        } else {
            #expect(actions == [setting ? .setClipboard(content) : .readClipboard(selection)])
        }
        #expect(machine.mayUseClipboard == (!viewOnly || watchersAllowed))
    }

    @Test func aHostWithoutAClipboardAndContentThatIsNotTextAreRefused() {
        var none = Self.established(Self.policy(clipboard: nil))
        #expect(none.received(.clipboardRequest(.clipboard), now: 1)
            == [.send(.error(code: .clipboardUnavailable, text: "this host does not share its clipboard"))])
        var machine = Self.established()
        let binary = ClipboardContent(selection: .clipboard, mimeType: "image/png", data: [1, 2, 3])
        guard case .send(.error(code: .clipboardRefused, _))? = machine.received(.clipboard(binary), now: 1).first else {
            Issue.record("binary content was not refused")
            return
        }
    }

    @Test func clipboardRequestsBeyondTheirBudgetAreDropped() {
        var machine = Self.established()
        let reads = (0..<100).flatMap { _ in machine.received(.clipboardRequest(.clipboard), now: 5) }
        #expect(reads.filter { $0 == .readClipboard(.clipboard) }.count == Int(2 * SessionBudgets.clipboardPerSecond))
    }
}
