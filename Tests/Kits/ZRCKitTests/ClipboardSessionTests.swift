import Foundation
import Testing
import ZRCControllerKit
import ZRCFrames
import ZRCHostKit
import ZRCProtocol
import ZRCKitTesting
import ZRCTestSupport

/// The clipboard rules of a host session, with an in-memory clipboard: who may read and set it,
/// who hears of changes, and that bad content is refused without ending the session.
@Suite struct ClipboardSessionTests {
    /// The host's clipboard in memory: what sessions set, and copies "made on the host".
    actor FakeClipboard: ClipboardBridge {
        private(set) var contents: [ClipboardSelection: ClipboardContent] = [:]
        private let stream: AsyncStream<ClipboardContent>
        private let sink: AsyncStream<ClipboardContent>.Continuation

        init() { (stream, sink) = AsyncStream.makeStream() }

        nonisolated func changes() -> AsyncStream<ClipboardContent> { stream }

        func read(_ selection: ClipboardSelection) async throws -> ClipboardContent {
            guard let content = contents[selection] else { throw ClipboardUnavailable("it is empty") }
            return content
        }

        func write(_ content: ClipboardContent) async throws { contents[content.selection] = content }

        /// An application on the host copied `text`.
        func hostCopied(_ text: String) {
            contents[.clipboard] = .text(text)
            sink.yield(.text(text))
        }
    }

    static let viewer: Capabilities = [.rawRects, .solidRects, .clipboard]

    func harness(_ clipboard: FakeClipboard?, inViewOnlySessions: Bool = false) throws -> HostHarness {
        let screen = FakeScreen(width: 32, height: 32)
        return try HostHarness(sharing: ScreenSharing(source: screen, input: screen, makeEncoder: { RawRegionCodec() }),
                               clipboard: clipboard.map { ClipboardSharing(bridge: $0, inViewOnlySessions: inViewOnlySessions) })
    }

    /// Two controllers' sessions: the first in control, the second watching.
    func controllingAndWatching(_ harness: HostHarness) async throws -> (ControllerSession, ControllerSession) {
        let (first, second) = try await harness.pairTwoControllers(capabilities: Self.viewer)
        let controlling = try await first.connect(to: "desk")
        _ = try await controlling.ping(timeout: .seconds(60))  // its hello has been handled: it holds control
        let watching = try await second.connect(to: "desk")
        #expect(watching.granted.contains(.viewOnly))
        return (controlling, watching)
    }

    /// The session's next message that `match` accepts; nil when the session ends first (a
    /// watchdog closes it after 20 s, so a missing message fails instead of hanging).
    func next(_ session: ControllerSession, where match: @escaping @Sendable (ZRCMessage) -> Bool) async -> ZRCMessage? {
        let watchdog = Task {
            guard (try? await Task.sleep(for: .seconds(20))) != nil else { return }
            await session.close(text: "watchdog")
        }
        defer { watchdog.cancel() }
        for await event in session.events {
            if case .message(let message) = event, match(message) { return message }
        }
        return nil
    }

    static func isClipboard(_ message: ZRCMessage) -> Bool { if case .clipboard = message { true } else { false } }

    static func notice(_ code: NoticeCode) -> @Sendable (ZRCMessage) -> Bool {
        { if case .error(code, _) = $0 { true } else { false } }
    }

    @Test func theSessionInControlSetsAndReadsWatchersGetNothing() async throws {
        let clipboard = FakeClipboard()
        let harness = try harness(clipboard)
        _ = try await harness.start()
        try await harness.stoppingAfter {
            let (controlling, watching) = try await controllingAndWatching(harness)

            try await controlling.send(.clipboard(.text("from the controller ✓")))
            _ = try await controlling.ping(timeout: .seconds(60))
            #expect(await clipboard.contents[.clipboard] == .text("from the controller ✓"))
            try await controlling.send(.clipboardRequest(.clipboard))
            #expect(await next(controlling, where: Self.isClipboard) == .clipboard(.text("from the controller ✓")))

            // The watcher may neither read nor set it, and hears of no change.
            try await watching.send(.clipboardRequest(.clipboard))
            let refusedRead = await next(watching, where: Self.notice(.clipboardUnavailable))
            #expect(refusedRead != nil)
            try await watching.send(.clipboard(.text("from the watcher")))
            #expect(await next(watching, where: Self.notice(.clipboardRefused)) != nil)
            #expect(await clipboard.contents[.clipboard] == .text("from the controller ✓"))
            await clipboard.hostCopied("copied on the host")
            #expect(await next(controlling, where: Self.isClipboard) == .clipboard(.text("copied on the host")))
            _ = try await watching.ping(timeout: .seconds(60))
            await watching.close()
            let rest = await collectMessages(watching)
            #expect(!rest.contains(where: Self.isClipboard), "the watcher got clipboard content: \(rest)")
            await controlling.close()
        }
    }

    /// Everything left in a closed session's events.
    func collectMessages(_ session: ControllerSession) async -> [ZRCMessage] {
        var messages: [ZRCMessage] = []
        for await event in session.events { if case .message(let message) = event { messages.append(message) } }
        return messages
    }

    /// Watchers read the clipboard when the host allows it, and never set it: a view-only session
    /// must not put text where the controlling user's next paste types it.
    @Test func watchersReadTheClipboardWhenTheHostAllowsItButNeverSetIt() async throws {
        let clipboard = FakeClipboard()
        let harness = try harness(clipboard, inViewOnlySessions: true)
        _ = try await harness.start()
        try await harness.stoppingAfter {
            let (controlling, watching) = try await controllingAndWatching(harness)
            try await controlling.send(.clipboard(.text("shared")))
            // The session that set it does not get its own text back; the watcher does.
            #expect(await next(watching, where: Self.isClipboard) == .clipboard(.text("shared")))
            try await watching.send(.clipboardRequest(.clipboard))
            #expect(await next(watching, where: Self.isClipboard) == .clipboard(.text("shared")), "the watcher reads it")
            try await watching.send(.clipboard(.text("set by the watcher")))
            guard case .error(_, let text) = await next(watching, where: Self.notice(.clipboardRefused)) else {
                Issue.record("the watcher's text was not refused")
                return
            }
            #expect(text.contains("never set it"))
            #expect(await clipboard.contents[.clipboard] == .text("shared"), "the host's clipboard is unchanged")
            await watching.close()
            await controlling.close()
        }
    }

    @Test func sessionsThatDidNotAskHearNoChangesButMayAsk() async throws {
        let clipboard = FakeClipboard()
        let harness = try harness(clipboard)
        _ = try await harness.start()
        try await harness.stoppingAfter {
            let (first, _) = try await harness.pairTwoControllers(capabilities: [.rawRects, .solidRects])
            let session = try await first.connect(to: "desk")
            _ = try await session.ping(timeout: .seconds(60))
            await clipboard.hostCopied("not pushed")
            try await session.send(.clipboardRequest(.clipboard))
            // The answer to the request is the first clipboard message: no push came before it.
            #expect(await next(session, where: Self.isClipboard) == .clipboard(.text("not pushed")))
            await session.close()
            #expect(await collectMessages(session).filter(Self.isClipboard).isEmpty)
        }
    }

    @Test func contentThatIsNotUTF8TextIsRefusedAndTheSessionGoesOn() async throws {
        let clipboard = FakeClipboard()
        let harness = try harness(clipboard)
        _ = try await harness.start()
        try await harness.stoppingAfter {
            let (first, _) = try await harness.pairTwoControllers(capabilities: Self.viewer)
            let session = try await first.connect(to: "desk")
            for content in [ClipboardContent(selection: .clipboard, mimeType: ClipboardContent.utf8Text, data: [0x63, 0xE9]),
                            ClipboardContent(selection: .clipboard, mimeType: "image/png", data: [0x89, 0x50])] {
                try await session.send(.clipboard(content))
                #expect(await next(session, where: Self.notice(.clipboardRefused)) != nil)
            }
            // PRIMARY is not shared by default.
            try await session.send(.clipboardRequest(.primary))
            #expect(await next(session, where: Self.notice(.clipboardUnavailable)) != nil)
            _ = try await session.ping(timeout: .seconds(60))
            #expect(await clipboard.contents.isEmpty)
            await session.close()
        }
    }

    @Test func aHostWithoutClipboardSaysSo() async throws {
        let harness = try harness(nil)
        _ = try await harness.start()
        try await harness.stoppingAfter {
            let (first, _) = try await harness.pairTwoControllers(capabilities: Self.viewer)
            let session = try await first.connect(to: "desk")
            guard case .hello(_, let capabilities, _) = await next(session, where: { if case .hello = $0 { true } else { false } }) else {
                Issue.record("no hello")
                return
            }
            #expect(!capabilities.contains(.clipboard))
            try await session.send(.clipboardRequest(.clipboard))
            guard case .error(_, let text) = await next(session, where: Self.notice(.clipboardUnavailable)) else {
                Issue.record("no notice")
                return
            }
            #expect(text.contains("does not share its clipboard"))
            await session.close()
        }
    }
}
