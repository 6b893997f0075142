public import ZRCProtocol

/// The host's clipboard: implemented over X selections by `ZRCHostX11`, by fakes in tests.
public protocol ClipboardBridge: Sendable {
    /// Content the host's own applications put into a shared selection, read as UTF-8 text
    /// (changes this bridge made itself with `write` are not reported). One consumer: the server.
    func changes() -> AsyncStream<ClipboardContent>
    /// The selection's current text.
    /// - Throws: `ClipboardUnavailable` saying why there is none (no owner, no text, too large).
    func read(_ selection: ClipboardSelection) async throws -> ClipboardContent
    /// Makes the host's selection hold `content` (UTF-8 text).
    func write(_ content: ClipboardContent) async throws
}

/// Why a selection has no text to give, for people.
public struct ClipboardUnavailable: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// What the host shares of its clipboard, and with whom.
public struct ClipboardSharing: Sendable {
    public var bridge: any ClipboardBridge
    /// The selections shared: always `clipboard`, `primary` when the host's config says so.
    public var selections: Set<ClipboardSelection>
    /// Whether view-only sessions (watchers) may read the clipboard too (never set it).
    public var inViewOnlySessions: Bool

    public init(bridge: any ClipboardBridge, selections: Set<ClipboardSelection> = [.clipboard], inViewOnlySessions: Bool = false) {
        self.bridge = bridge
        self.selections = selections
        self.inViewOnlySessions = inViewOnlySessions
    }
}
