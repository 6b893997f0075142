import Foundation
import Synchronization
import Testing
import ZRCTestSupport
@testable import ZRCX11
import ZRCXTestSupport

/// The selections against real X clients that own and read them (xclip, xsel), each test on a
/// private Xvfb: reading another client's text (small, INCR, Latin-1), owning text that xclip
/// reads (small and INCR), and noticing changes of owner. Serialized: each test runs an Xvfb and X
/// clients of its own, which together would crowd a loaded machine.
@Suite(.serialized) struct X11ClipboardTests {
    static let limit = 1 << 20

    /// Text that is not ASCII, so encodings show.
    static func sample(bytes count: Int) -> String {
        let line = "zrc clipboard ✓ grüße 日本語 — 0123456789\n"
        return String(String(repeating: line, count: count / line.utf8.count + 1).utf8.prefix(count))!
    }

    struct Fixture {
        let server: PrivateXServer
        let directory: URL

        init() async throws {
            server = try await PrivateXServer.start(["-screen", "0", "320x200x24"])
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-clip-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }

        func file(_ name: String, _ bytes: [UInt8]) throws -> String {
            let url = directory.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            return url.path
        }

        /// Runs a shell command against the private display; xclip and xsel fork to keep owning a
        /// selection, so their output goes to files, never to a pipe the test would wait on.
        func shell(_ command: String) async throws -> (status: Int32, text: String) {
            try await Self.shell(command, display: server.display)
        }

        static func shell(_ command: String, display: String) async throws -> (status: Int32, text: String) {
            try await XTool.output("sh", ["-c", command], display: display)
        }

        /// Starts an X client that takes a selection and stays to serve it (see `XTool.startDaemon`).
        func startOwner(_ command: [String], input: String? = nil) async throws {
            try await XTool.startDaemon(command, input: input, display: server.display)
        }

        func cleanUp() { try? FileManager.default.removeItem(at: directory) }
    }

    /// Handles the clipboard's events until one matches, 20 s at most.
    static func drive(_ clipboard: X11Clipboard, until match: (X11Clipboard.Event) -> Bool) async throws -> X11Clipboard.Event {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            for event in try clipboard.processEvents(nowMicros: Self.micros()) where match(event) { return event }
            try await Task.sleep(for: .milliseconds(5))
        }
        try #require(Bool(false), "no matching clipboard event within 20 s")
        throw CancellationError()
    }

    /// Waits for another client to take the clipboard, reads it, and returns how the read ended.
    static func readAfterOwnerChange(_ clipboard: X11Clipboard) async throws -> X11Clipboard.Event {
        _ = try await drive(clipboard) { $0 == .ownerChanged(.clipboard) }
        clipboard.read(.clipboard, nowMicros: micros())
        return try await drive(clipboard) { if case .readFinished = $0 { true } else if case .readFailed = $0 { true } else { false } }
    }

    /// The reason of a refused read.
    static func refusal(_ event: X11Clipboard.Event) throws -> String {
        guard case .readFailed(.clipboard, let reason) = event else {
            try #require(Bool(false), "expected a refusal, got \(event)")
            return ""
        }
        return reason
    }

    /// Keeps answering X requests (as the owner does) while `work` runs.
    static func serving<T: Sendable>(_ clipboard: X11Clipboard, while work: @escaping @Sendable () async throws -> T) async throws -> T {
        let done = Mutex(false)
        let task = Task {
            defer { done.withLock { $0 = true } }
            return try await work()
        }
        while !done.withLock({ $0 }) {
            _ = try clipboard.processEvents(nowMicros: micros())
            try await Task.sleep(for: .milliseconds(2))
        }
        return try await task.value
    }

    /// A monotonic clock in microseconds, as the clipboard's timeouts take it.
    static func micros() -> UInt64 { DispatchTime.now().uptimeNanoseconds / 1000 }

    @Test(arguments: [(100, false), (600_000, true)])
    func readsTextAnotherClientOwns(size: Int, incremental: Bool) async throws {
        let fixture = try await Fixture()
        defer { fixture.cleanUp() }
        let clipboard = try X11Clipboard(connection: X11Connection(displayName: fixture.server.display), selections: [.clipboard],
                                         maximumBytes: Self.limit)
        let text = Self.sample(bytes: size)
        let path = try fixture.file("in.txt", Array(text.utf8))
        // xsel hands text over 4000-odd bytes out in INCR parts; xclip for small text.
        if incremental {
            try await fixture.startOwner(["xsel", "--clipboard", "--input"], input: path)
        } else {
            try await fixture.startOwner(["xclip", "-selection", "clipboard", "-i", path])
        }
        let event = try await Self.readAfterOwnerChange(clipboard)
        guard case .readFinished(.clipboard, let bytes, let wasIncremental) = event else {
            try #require(Bool(false), "read failed: \(event)")
            return
        }
        #expect(bytes == Array(text.utf8), "\(bytes.count) bytes read, \(text.utf8.count) owned")
        #expect(wasIncremental == incremental)
    }

    @Test func readsLatin1FromAnOwnerWithoutUTF8() async throws {
        let fixture = try await Fixture()
        defer { fixture.cleanUp() }
        let clipboard = try X11Clipboard(connection: X11Connection(displayName: fixture.server.display), selections: [.clipboard],
                                         maximumBytes: Self.limit)
        let path = try fixture.file("latin1.txt", [0x63, 0x61, 0x66, 0xE9])  // "café" in ISO 8859-1
        try await fixture.startOwner(["xclip", "-selection", "clipboard", "-target", "STRING", "-i", path])
        let event = try await Self.readAfterOwnerChange(clipboard)
        #expect(event == .readFinished(.clipboard, text: Array("café".utf8), incremental: false))
    }

    @Test func aReadOverTheLimitFailsWithoutTakingIt() async throws {
        let fixture = try await Fixture()
        defer { fixture.cleanUp() }
        let clipboard = try X11Clipboard(connection: X11Connection(displayName: fixture.server.display), selections: [.clipboard],
                                         maximumBytes: 50_000)
        let path = try fixture.file("big.txt", Array(Self.sample(bytes: 200_000).utf8))
        try await fixture.startOwner(["xsel", "--clipboard", "--input"], input: path)
        let event = try await Self.readAfterOwnerChange(clipboard)
        let reason = try Self.refusal(event)
        #expect(reason.contains("50000"), "\(reason)")
    }

    @Test(arguments: [100, 600_000])
    func ownedTextIsWhatOtherClientsPaste(size: Int) async throws {
        let fixture = try await Fixture()
        defer { fixture.cleanUp() }
        let clipboard = try X11Clipboard(connection: X11Connection(displayName: fixture.server.display), selections: [.clipboard],
                                         maximumBytes: Self.limit)
        let text = Self.sample(bytes: size)
        try clipboard.own(.clipboard, text: Array(text.utf8))
        #expect(clipboard.owns(.clipboard))
        let out = fixture.directory.appendingPathComponent("out.txt").path
        let read = try await Self.serving(clipboard) { [display = fixture.server.display] in
            try await Fixture.shell("timeout 20 xclip -selection clipboard -o > '\(out)'", display: display)
        }
        #expect(read.status == 0, "\(read.text)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data(text.utf8))
        #expect(clipboard.incrementalSends == (size > clipboard.chunkBytes ? 1 : 0), "INCR only beyond one part")

        // TARGETS lists the text types; STRING gets Latin-1 (what it cannot hold as `?`).
        let targets = try await Self.serving(clipboard) { [display = fixture.server.display] in
            try await Fixture.shell("timeout 20 xclip -selection clipboard -o -target TARGETS", display: display)
        }
        #expect(targets.text.contains("UTF8_STRING") && targets.text.contains("STRING"), "\(targets.text)")

        // Another client taking the selection ends this client's ownership.
        let other = try fixture.file("other.txt", Array("other".utf8))
        try await fixture.startOwner(["xclip", "-selection", "clipboard", "-i", other])
        _ = try await Self.drive(clipboard) { $0 == .ownershipLost(.clipboard) }
        #expect(!clipboard.owns(.clipboard))
    }

    @Test func ownedLatin1IsServedAsString() async throws {
        let fixture = try await Fixture()
        defer { fixture.cleanUp() }
        let clipboard = try X11Clipboard(connection: X11Connection(displayName: fixture.server.display), selections: [.clipboard],
                                         maximumBytes: Self.limit)
        try clipboard.own(.clipboard, text: Array("café ✓".utf8))
        let out = fixture.directory.appendingPathComponent("out.bin").path
        let read = try await Self.serving(clipboard) { [display = fixture.server.display] in
            try await Fixture.shell("timeout 20 xclip -selection clipboard -target STRING -o > '\(out)'", display: display)
        }
        #expect(read.status == 0, "\(read.text)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data([0x63, 0x61, 0x66, 0xE9, 0x20, 0x3F]))
    }

    /// Latin-1 grows when it becomes UTF-8: the limit applies to what would be shared.
    @Test func latin1ThatOutgrowsTheLimitAsUTF8IsRefused() async throws {
        let fixture = try await Fixture()
        defer { fixture.cleanUp() }
        let clipboard = try X11Clipboard(connection: X11Connection(displayName: fixture.server.display), selections: [.clipboard],
                                         maximumBytes: 1000)
        let path = try fixture.file("wide.txt", [UInt8](repeating: 0xE9, count: 600))  // 1200 bytes as UTF-8
        try await fixture.startOwner(["xclip", "-selection", "clipboard", "-target", "STRING", "-i", path])
        let event = try await Self.readAfterOwnerChange(clipboard)
        let reason = try Self.refusal(event)
        #expect(reason.contains("1200"), "\(reason)")
    }

    /// Another client's change of owner, still queued when this client takes the selection, is
    /// older than this client's ownership and must not end it.
    @Test func aChangeQueuedBeforeOwningDoesNotUndoIt() async throws {
        let fixture = try await Fixture()
        defer { fixture.cleanUp() }
        let clipboard = try X11Clipboard(connection: X11Connection(displayName: fixture.server.display), selections: [.clipboard],
                                         maximumBytes: Self.limit)
        let path = try fixture.file("theirs.txt", Array("theirs".utf8))
        try await fixture.startOwner(["xclip", "-selection", "clipboard", "-i", path])
        // Wait for xclip's ownership without handling events: its notification stays queued.
        let deadline = ContinuousClock.now + .seconds(20)
        while try !clipboard.hasOwner(.clipboard), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        try clipboard.own(.clipboard, text: Array("ours".utf8))
        let events = try clipboard.processEvents(nowMicros: Self.micros())
        #expect(!events.contains(.ownershipLost(.clipboard)), "\(events)")
        #expect(clipboard.owns(.clipboard))
        let out = fixture.directory.appendingPathComponent("out.txt").path
        let read = try await Self.serving(clipboard) { [display = fixture.server.display] in
            try await Fixture.shell("timeout 20 xclip -selection clipboard -o > '\(out)'", display: display)
        }
        #expect(read.status == 0, "\(read.text)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "ours")
    }

    @Test func textOverTheLimitIsNotOwned() async throws {
        let fixture = try await Fixture()
        defer { fixture.cleanUp() }
        let clipboard = try X11Clipboard(connection: X11Connection(displayName: fixture.server.display), selections: [.clipboard],
                                         maximumBytes: 1000)
        let error = #expect(throws: X11Error.self) { try clipboard.own(.clipboard, text: [UInt8](repeating: 0x41, count: 1001)) }
        #expect(error?.kind == .invalidInput)
        #expect(!clipboard.owns(.clipboard))
    }

    /// A client asks ZRC for its text with ZRC's own window as the requestor: refused, so no INCR
    /// send to that window starts, and its end cannot clear the events ZRC hears on its window.
    @Test func aRequestNamingZRCsOwnWindowIsRefused() async throws {
        let fixture = try await Fixture()
        defer { fixture.cleanUp() }
        let clipboard = try X11Clipboard(connection: X11Connection(displayName: fixture.server.display), selections: [.clipboard],
                                         maximumBytes: Self.limit, transferTimeoutMicros: 200_000)
        try clipboard.own(.clipboard, text: Array(Self.sample(bytes: 300_000).utf8))
        let attacker = try SelectionAttacker(display: fixture.server.display)
        attacker.convertSelection(requestor: clipboard.window, selection: "CLIPBOARD", target: "UTF8_STRING", property: "ZRC_TRAP")
        // Requests are served in order: once its own request is answered, the trap was handled.
        attacker.convertSelection(requestor: attacker.window, selection: "CLIPBOARD", target: "TARGETS", property: "ANSWER")
        let deadline = ContinuousClock.now + .seconds(20)
        var answered = false
        while !answered, ContinuousClock.now < deadline {
            _ = try clipboard.processEvents(nowMicros: Self.micros())
            answered = attacker.nextNotify(timeout: .milliseconds(5)) != nil
        }
        #expect(answered, "the attacker's own request was answered")
        // Long after any transfer would have expired.
        _ = try clipboard.processEvents(nowMicros: Self.micros() + 60_000_000)
        #expect(!clipboard.hasTransfers)
        let masks = try #require(attacker.allEventMasks(of: clipboard.window))
        #expect(masks & SelectionAttacker.propertyChangeMask != 0, "ZRC still hears property changes on its window")
    }

    /// Another client writes into ZRC's read property and forges the owner's SelectionNotify
    /// (SendEvent) before the owner answers: ignored; the read ends with the owner's text.
    @Test func aForgedSelectionNotifyIsIgnored() async throws {
        let fixture = try await Fixture()
        defer { fixture.cleanUp() }
        let clipboard = try X11Clipboard(connection: X11Connection(displayName: fixture.server.display), selections: [.clipboard],
                                         maximumBytes: Self.limit)
        let owner = try SelectionAttacker(display: fixture.server.display)
        let forger = try SelectionAttacker(display: fixture.server.display)
        owner.own("CLIPBOARD")
        _ = try await Self.drive(clipboard) { $0 == .ownerChanged(.clipboard) }
        clipboard.read(.clipboard, nowMicros: Self.micros())
        var request: SelectionAttacker.Request?
        let deadline = ContinuousClock.now + .seconds(20)
        while request == nil, ContinuousClock.now < deadline {
            _ = try clipboard.processEvents(nowMicros: Self.micros())
            request = owner.nextRequest(timeout: .milliseconds(5))
        }
        let asked = try #require(request, "the owner was asked")
        #expect(asked.time != 0, "ZRC names a server time, not CurrentTime")
        forger.write(Array("forged".utf8), type: "UTF8_STRING", to: asked.requestor, property: asked.property)
        for time in [0, asked.time &- 1, asked.time &+ 1] {
            forger.sendSelectionNotify(to: asked.requestor, selection: asked.selection, target: asked.target, property: asked.property, time: time)
        }
        var early: [X11Clipboard.Event] = []
        while clipboard.forgedNotifications < 3, early.isEmpty, ContinuousClock.now < deadline {
            early += try clipboard.processEvents(nowMicros: Self.micros())
        }
        #expect(early.isEmpty, "the forgery ended the read: \(early)")
        owner.write(Array("real".utf8), type: "UTF8_STRING", to: asked.requestor, property: asked.property)
        owner.sendSelectionNotify(to: asked.requestor, selection: asked.selection, target: asked.target, property: asked.property, time: asked.time)
        let event = try await Self.drive(clipboard) { if case .readFinished = $0 { true } else if case .readFailed = $0 { true } else { false } }
        #expect(event == .readFinished(.clipboard, text: Array("real".utf8), incremental: false))
    }
}
