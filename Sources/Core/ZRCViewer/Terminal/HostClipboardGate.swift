public import ZRCProtocol

/// Decides whether a `clipboard` message from the host may reach this terminal's clipboard.
///
/// A host copy written into the local clipboard is ready to be pasted into a local shell, and
/// anything on the host's display can set it (a malicious host, any X client there, a web page
/// after one click): pastejacking. So by default a copy only reaches the terminal when the user
/// asked for it — Ctrl+] c sends a `clipboardRequest`, and the answer (the first clipboard message
/// within `requestLifetime`) is written once. Every other message is dropped: only its size is
/// kept for the status line's offer ("host copied 2 lines — Ctrl+] c to take them").
/// `acceptsEverything` (controller.json `clipboardFromHost`, `view --clipboard-from-host`) writes
/// every copy, as the viewer did before.
///
/// Sans-IO: "now" is an input, in microseconds of any monotonic clock.
public struct HostClipboardGate: Sendable {
    /// What to do with one host clipboard message.
    public enum Decision: Sendable, Equatable {
        /// Write it to the terminal's clipboard (it was asked for, or everything is accepted).
        case write(ClipboardContent)
        /// Drop it; tell the user what was copied and how to take it.
        case offer(String)
        /// Drop it silently (not text: nothing a terminal's clipboard could take).
        case drop
    }

    public let acceptsEverything: Bool
    /// How long an answer to Ctrl+] c is waited for.
    public static let requestLifetime: UInt64 = 10_000_000
    private var requestedUntil: UInt64?

    /// How the offer tells the user to take a copy ("Ctrl+] c" in a terminal, a button's name in the page).
    public let takeHint: String

    public init(acceptsEverything: Bool, takeHint: String = "Ctrl+] c") {
        self.acceptsEverything = acceptsEverything
        self.takeHint = takeHint
    }

    /// Whether a request is waiting for its answer at `now`.
    public func isAwaitingAnswer(now: UInt64) -> Bool {
        requestedUntil.map { now <= $0 } ?? false
    }

    /// The user asked for the host's clipboard (Ctrl+] c): the next copy within the lifetime is taken.
    public mutating func requested(now: UInt64) {
        requestedUntil = now &+ Self.requestLifetime
    }

    /// The host answered the request with an error (nothing to send): the request is over.
    public mutating func requestFailed() {
        requestedUntil = nil
    }

    public mutating func receive(_ content: ClipboardContent, now: UInt64) -> Decision {
        guard let text = content.text else { return .drop }
        if acceptsEverything { return .write(content) }
        if isAwaitingAnswer(now: now) {
            requestedUntil = nil
            return .write(content)
        }
        requestedUntil = nil
        return .offer("host copied \(Self.size(of: text)) — \(takeHint) to take \(Self.pronoun(of: text))")
    }

    /// "2 lines", "1 line", "40 characters" (a single line is counted in characters).
    static func size(of text: String) -> String {
        var lines = 1
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\r" || (scalar == "\n" && !previousWasCR) { lines += 1 }
            previousWasCR = scalar == "\r"
        }
        if let last = text.unicodeScalars.last, last == "\n" || last == "\r" { lines -= 1 }
        if lines <= 1 {
            let count = text.unicodeScalars.count
            return count == 1 ? "1 character" : "\(count) characters"
        }
        return "\(lines) lines"
    }

    static func pronoun(of text: String) -> String {
        text.unicodeScalars.count == 1 ? "it" : "them"
    }
}
