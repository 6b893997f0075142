internal import ExtrasBase64

/// What the viewer asks the terminal at start, and what it learns from the answers.
///
/// The queries go out together, primary device attributes (DA1) last: every terminal answers DA1
/// and answers in order, so once the DA1 reply is in, anything not yet answered never will be.
/// A terminal that answers nothing at all (a pipe, a very old terminal) is caught by the caller's
/// timeout; the capabilities then stay at their conservative defaults.
public struct TerminalProbe: Sendable {
    /// The image id of the kitty graphics queries (kitty answers with it).
    public static let directQueryID = 31
    public static let sharedMemoryQueryID = 32

    public private(set) var capabilities = TerminalCapabilities()
    /// Whether the DA1 answer arrived (every query has then been answered or ignored).
    public private(set) var isComplete = false

    public init() {}

    /// The queries to write, in order. `sharedMemoryName` is a shared-memory object holding one
    /// RGB pixel, to learn whether a kitty-protocol terminal can read our memory (it runs on this
    /// machine); nil skips that question.
    public static func queries(sharedMemoryName: String?) -> String {
        var text = ""
        // kitty graphics: a 1x1 RGB image sent inline, "query" action (nothing is stored or shown).
        text += "\u{1B}_Gi=\(directQueryID),s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\"
        if let sharedMemoryName {
            text += "\u{1B}_Gi=\(sharedMemoryQueryID),s=1,v=1,a=q,t=s,f=24;\(Base64.encodeToString(bytes: Array(sharedMemoryName.utf8)))\u{1B}\\"
        }
        text += "\u{1B}[>0q"        // XTVERSION: the terminal's name and version
        text += "\u{1B}[16t"        // cell size in pixels
        text += "\u{1B}[14t"        // text area in pixels
        text += "\u{1B}[?1016$p"    // SGR-pixels mouse reports supported?
        text += "\u{1B}[?2026$p"    // synchronized output supported?
        text += "\u{1B}[?u"         // kitty keyboard protocol supported?
        text += "\u{1B}[c"          // DA1, answered by everyone: the end marker
        return text
    }

    /// Takes one reply into account.
    public mutating func take(_ reply: TerminalReply) {
        switch reply {
        case .deviceAttributes(let attributes):
            capabilities.sixel = attributes.contains(4)
            capabilities.answered = true
            isComplete = true
        case .cellPixels(let width, let height):
            if width > 0, height > 0 { capabilities.cellPixels = (width, height) }
        case .textAreaPixels(let width, let height):
            if width > 0, height > 0 { capabilities.textAreaPixels = (width, height) }
        case .modeReport(let mode, let value):
            let supported = value != 0 && value != 4
            if mode == 1016 { capabilities.sgrPixelMouse = supported }
            if mode == 2026 { capabilities.synchronizedOutput = supported }
        case .keyboardFlags:
            capabilities.kittyKeyboard = true
        case .graphics(let id, let message):
            let ok = message == "OK"
            if id == Self.directQueryID { capabilities.kittyGraphics = ok }
            if id == Self.sharedMemoryQueryID { capabilities.kittySharedMemory = ok }
        case .terminalVersion(let version):
            capabilities.version = version
        }
    }
}

/// What the terminal showed it can do (all false until it says so).
public struct TerminalCapabilities: Sendable {
    /// The terminal answered the queries (its device attributes arrived).
    public var answered = false
    public var kittyGraphics = false
    /// The terminal read a shared-memory image of ours: it runs on this machine.
    public var kittySharedMemory = false
    public var sixel = false
    public var sgrPixelMouse = false
    public var synchronizedOutput = false
    public var kittyKeyboard = false
    public var cellPixels: (width: Int, height: Int)?
    public var textAreaPixels: (width: Int, height: Int)?
    /// XTVERSION's answer, e.g. "kitty(0.26.5)" or "XTerm(379)".
    public var version: String?

    public init() {}

    /// Whether the terminal is kitty itself, which edits part of a shown image in place
    /// (animation frame editing); other kitty-protocol terminals get whole images.
    public var isKitty: Bool { version?.hasPrefix("kitty") ?? false }
}
