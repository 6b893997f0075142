import Testing
import ZRCControllerKit
import ZRCProtocol
import ZRCViewerKit

/// The viewer's session logic alone, on a fake clock: reconnect schedule and stops, clipboard
/// policy, view-only, and leaving.
@Suite struct ViewerCoreTests {
    static let second: UInt64 = 1_000_000

    func core(viewOnly: Bool = false, clipboardFromHost: Bool = false) -> ViewerCore {
        ViewerCore(viewOnly: viewOnly, clipboard: true, clipboardFromHost: clipboardFromHost, takeHint: "Take host clipboard")
    }

    @Test func itReconnectsAfterTwoFourEightThenEveryTenSecondsAndStartsOverAfterASession() {
        var core = core()
        #expect(core.start() == [.open(viewOnly: false)])
        #expect(core.handle(.opened(viewOnly: false, path: "direct TCP"), now: 0).isEmpty)
        #expect(core.connection == .connected(viewOnly: false, path: "direct TCP"))
        _ = core.handle(.ended(.connectionLost), now: 100 * Self.second)
        #expect(core.connection == .waiting(until: 102 * Self.second, attempt: 1, reason: "connection lost"))
        #expect(core.handle(.tick, now: 101 * Self.second).isEmpty, "not before its time")
        #expect(core.handle(.tick, now: 102 * Self.second) == [.open(viewOnly: false)])
        var now = 102 * Self.second
        for expected in [4, 8, 10, 10] as [UInt64] {
            _ = core.handle(.openFailed(ControllerError(.unreachable, "no route")), now: now)
            #expect(core.nextWake == now + expected * Self.second, "waits \(expected) s")
            now += expected * Self.second
            #expect(core.handle(.tick, now: now) == [.open(viewOnly: false)])
        }
        _ = core.handle(.opened(viewOnly: false, path: "relay"), now: now)
        _ = core.handle(.ended(.peerTimedOut), now: now)
        #expect(core.nextWake == now + 2 * Self.second, "a session that opened starts the schedule over")
    }

    @Test func aRevokedControllerOrAClosedInviteStopsTheViewer() {
        var core = core()
        _ = core.handle(.opened(viewOnly: false, path: "p"), now: 0)
        let actions = core.handle(.ended(.remote(reason: .revoked, text: "gone")), now: 1)
        guard case .finish(let why)? = actions.first else {
            Issue.record("no finish: \(actions)")
            return
        }
        #expect(why.contains("revoked"))
        #expect(core.handle(.tick, now: 100 * Self.second).isEmpty)
    }

    @Test func unverifiedRefusalsAreRetriedUntilThirtyInARow() {
        var core = core()
        var now: UInt64 = 0
        var finished: String?
        for attempt in 1...ReconnectPolicy.unverifiedStreakLimit {
            let actions = core.handle(.openFailed(ControllerError(.rejected(.notAuthorized), "refused")), now: now)
            if case .finish(let why)? = actions.last { finished = why; #expect(attempt == ReconnectPolicy.unverifiedStreakLimit); break }
            #expect(actions.contains(.notice("refused", seconds: 8)), "shown while retried")
            now = core.nextWake ?? now
            _ = core.handle(.tick, now: now)
        }
        #expect(finished?.contains("30 times in a row") == true)
    }

    @Test func hostCopiesAreOfferedUntilTakenUnlessEveryCopyIsAllowed() {
        var core = core()
        _ = core.handle(.opened(viewOnly: false, path: "p"), now: 0)
        #expect(core.handle(.hostClipboard(.text("x")), now: 1).isEmpty, "nothing before the host says it shares one")
        _ = core.handle(.hostHello([.clipboard]), now: 1)
        #expect(core.handle(.hostClipboard(.text("ls\nrm -rf ~\n")), now: 2) == [.notice("host copied 2 lines — Take host clipboard to take them", seconds: 15)])
        #expect(core.handle(.takeClipboard, now: 3) == [.requestClipboard])
        #expect(core.handle(.hostClipboard(.text("asked")), now: 4) == [.writeClipboard("asked")])
        #expect(core.handle(.hostClipboard(.text("pushed")), now: 5) != [.writeClipboard("pushed")], "one request, one copy")

        var trusting = self.core(clipboardFromHost: true)
        _ = trusting.handle(.opened(viewOnly: false, path: "p"), now: 0)
        _ = trusting.handle(.hostHello([.clipboard]), now: 0)
        #expect(trusting.handle(.hostClipboard(.text("pushed")), now: 1) == [.writeClipboard("pushed")])
    }

    @Test func aViewOnlySessionSendsNoKeysAndHasNoClipboard() {
        var core = core()
        _ = core.handle(.opened(viewOnly: true, path: "p"), now: 0)
        #expect(core.isViewOnly)
        _ = core.handle(.hostHello([.clipboard]), now: 0)
        #expect(!core.clipboardAvailable, "a watcher never sets the host's clipboard")
        #expect(core.handle(.takeClipboard, now: 0) == [.requestClipboard], "but may ask to read it (the host decides)")
        #expect(core.handle(.browserKey(pressed: true, key: "a", code: "KeyA", modifiers: []), now: 1).isEmpty)
    }

    @Test func keysAreTranslatedAndReleasedWhenFocusIsLost() {
        var core = core()
        _ = core.handle(.opened(viewOnly: false, path: "p"), now: 0)
        #expect(core.handle(.browserKey(pressed: true, key: "€", code: "KeyE", modifiers: [.altGr]), now: 1)
                == [.send([.key(keysym: 0x0100_20AC, pressed: true, modifiers: [.altGr])])])
        #expect(core.handle(.releaseKeys, now: 2) == [.send([.key(keysym: 0x0100_20AC, pressed: false, modifiers: [])])])
        #expect(core.handle(.releaseKeys, now: 3).isEmpty)
    }

    @Test func leavingClosesTheSessionOnce() {
        var core = core()
        _ = core.handle(.opened(viewOnly: false, path: "p"), now: 0)
        #expect(core.handle(.leave("disconnected"), now: 1) == [.closeSession, .finish("disconnected")])
        #expect(core.handle(.leave("again"), now: 2).isEmpty)
        #expect(core.handle(.ended(.local(reason: .normal, text: "x")), now: 3).isEmpty, "the end of a session left on purpose starts nothing")
    }
}
