public import ZRCProtocol

/// What the viewer does with one terminal event.
public enum ViewerAction: Sendable, Equatable {
    /// Input for the host.
    case send([InputEvent])
    /// The escape chord's `q`: leave the viewer, the session ends.
    case detach
    /// The view changed (zoom, pan, reset): redraw.
    case viewChanged
    case toggleHelp
    /// Put this text into the host's clipboard (a paste in a clipboard paste mode).
    case setClipboard(String)
    /// Something to tell the user on the status line for a moment.
    case notice(String)
    /// The escape chord's `c`: ask the host for its clipboard and put the answer into this
    /// terminal's clipboard (the one way a host copy gets there by default).
    case takeHostClipboard
    /// The escape chord's `m`: show the next monitor (after the last: all of them).
    case nextMonitor
}

/// Turns terminal events into host input through the viewport, and handles the escape chord.
///
/// - Mouse reports (cells, or pixels with SGR-pixels 1016) are mapped to remote pixels at the
///   centre of the reported cell or pixel; events in the letterbox bars send nothing, except the
///   release of a held button, which is never lost (clamped to the screen) so nothing stays pressed.
/// - Keys: terminals report presses only, so each press becomes press + release, unless the
///   terminal reports releases itself (kitty keyboard protocol with event types).
/// - Pasted text is typed as text, with Return and Tab keys for line breaks and tabs, or goes
///   through the host's clipboard (`pasteMode`, when the host shares its clipboard).
/// - The escape chord is Ctrl+] followed by: `q` detach, `+`/`-` zoom, arrows pan, `0` whole
///   screen, `m` next monitor, `p` paste mode, `c` take the host's clipboard, `?` help, Ctrl+] again to send Ctrl+] itself.
public struct ViewerInputMapper: Sendable {
    public var viewport: Viewport
    /// Terminal pixels per cell, and where the drawing area starts (0-based cell column and row).
    public var cellWidth: Double
    public var cellHeight: Double
    public var areaColumn = 0
    public var areaRow = 0
    public var reportsPixels = false
    public var reportsKeyReleases = false
    public var viewOnly = false
    /// What a paste does; the clipboard modes only while `clipboardAvailable`.
    public private(set) var pasteMode = PasteMode.type
    /// The host shares its clipboard with this session (its hello said so, and this viewer
    /// was not started with --no-clipboard).
    public var clipboardAvailable = false
    private var chordPending = false
    private var heldButtons: Set<Int> = []

    public static let chordKeysym: UInt32 = 0x5D  // Ctrl+]

    public init(viewport: Viewport, cellWidth: Double, cellHeight: Double, pasteMode: PasteMode = .type) {
        self.pasteMode = pasteMode
        self.viewport = viewport
        self.cellWidth = max(1, cellWidth)
        self.cellHeight = max(1, cellHeight)
    }

    public mutating func handle(_ event: TerminalEvent) -> [ViewerAction] {
        switch event {
        case .key(let keysym, let modifiers, let action):
            return key(keysym, modifiers: modifiers, action: action)
        case .mouse(let report):
            return viewOnly ? [] : mouse(report)
        case .paste(let text):
            return viewOnly ? [] : paste(text)
        case .focus, .reply:
            return []
        }
    }

    /// The local point (terminal pixels in the drawing area) a report points at.
    public func localPoint(of report: MouseReport) -> (x: Double, y: Double) {
        if reportsPixels {
            return (Double(report.x - 1) + 0.5 - Double(areaColumn) * cellWidth, Double(report.y - 1) + 0.5 - Double(areaRow) * cellHeight)
        }
        return ((Double(report.x - 1 - areaColumn) + 0.5) * cellWidth, (Double(report.y - 1 - areaRow) + 0.5) * cellHeight)
    }

    private mutating func mouse(_ report: MouseReport) -> [ViewerAction] {
        let local = localPoint(of: report)
        let mapped = viewport.remotePixel(x: local.x, y: local.y)
        switch report.kind {
        case .press(let button):
            guard let (x, y) = mapped else { return [] }
            heldButtons.insert(button)
            return [.send([.button(UInt8(button), pressed: true, x: Int32(x), y: Int32(y))])]
        case .release(let button):
            guard heldButtons.remove(button) != nil else { return [] }
            let (x, y) = mapped ?? clamped(local)
            return [.send([.button(UInt8(button), pressed: false, x: Int32(x), y: Int32(y))])]
        case .move:
            guard let (x, y) = mapped ?? (heldButtons.isEmpty ? nil : clamped(local)) else { return [] }
            return [.send([.pointerMove(x: Int32(x), y: Int32(y))])]
        case .scroll(let dx, let dy):
            guard let (x, y) = mapped else { return [] }
            return [.send([.scroll(dx: Int16(dx), dy: Int16(dy), x: Int32(x), y: Int32(y))])]
        }
    }

    /// A point outside the image, pulled onto its nearest edge (for a drag that left it).
    private func clamped(_ local: (x: Double, y: Double)) -> (x: Int, y: Int) {
        let image = viewport.imageRect
        let x = min(max(local.x, image.x), image.x + image.width - 0.001)
        let y = min(max(local.y, image.y), image.y + image.height - 0.001)
        return viewport.remotePixel(x: x, y: y) ?? (0, 0)
    }

    private mutating func key(_ keysym: UInt32, modifiers: KeyModifiers, action: KeyAction) -> [ViewerAction] {
        if chordPending {
            guard action != .release else { return [] }
            chordPending = false
            return chord(keysym, modifiers: modifiers)
        }
        if keysym == Self.chordKeysym, modifiers == .control {
            if action != .release { chordPending = true }
            return []
        }
        return viewOnly ? [] : [.send(keyEvents(keysym, modifiers: modifiers, action: action))]
    }

    private func keyEvents(_ keysym: UInt32, modifiers: KeyModifiers, action: KeyAction) -> [InputEvent] {
        switch action {
        case .release: [.key(keysym: keysym, pressed: false, modifiers: modifiers)]
        case .press, .repeat:
            reportsKeyReleases
                ? [.key(keysym: keysym, pressed: true, modifiers: modifiers)]
                : [.key(keysym: keysym, pressed: true, modifiers: modifiers), .key(keysym: keysym, pressed: false, modifiers: modifiers)]
        }
    }

    private mutating func chord(_ keysym: UInt32, modifiers: KeyModifiers) -> [ViewerAction] {
        let centre = (x: Double(viewport.areaWidth) / 2, y: Double(viewport.areaHeight) / 2)
        let step = Double(min(viewport.areaWidth, viewport.areaHeight)) / 4
        switch keysym {
        case UInt32(ascii: "q"), UInt32(ascii: "Q"): return [.detach]
        case UInt32(ascii: "+"), UInt32(ascii: "="): viewport.zoom(by: 1.5, keepingLocal: centre.x, centre.y)
        case UInt32(ascii: "-"): viewport.zoom(by: 1 / 1.5, keepingLocal: centre.x, centre.y)
        case UInt32(ascii: "0"): viewport.reset()
        case TerminalKeysym.left: viewport.pan(byLocal: -step, 0)
        case TerminalKeysym.right: viewport.pan(byLocal: step, 0)
        case TerminalKeysym.up: viewport.pan(byLocal: 0, -step)
        case TerminalKeysym.down: viewport.pan(byLocal: 0, step)
        case UInt32(ascii: "?"), UInt32(ascii: "h"): return [.toggleHelp]
        case UInt32(ascii: "m"), UInt32(ascii: "M"): return [.nextMonitor]
        case UInt32(ascii: "p"), UInt32(ascii: "P"):
            guard clipboardAvailable else { return [.notice("the host shares no clipboard with this session: paste types the text")] }
            pasteMode = pasteMode.next
            return [.notice(pasteMode.description)]
        case UInt32(ascii: "c"), UInt32(ascii: "C"):
            guard clipboardAvailable else { return [.notice("the host shares no clipboard with this session")] }
            return [.takeHostClipboard]
        case Self.chordKeysym where modifiers == .control:
            return viewOnly ? [] : [.send(keyEvents(keysym, modifiers: modifiers, action: .press))]
        default: return []
        }
        return [.viewChanged]
    }

    private func paste(_ text: String) -> [ViewerAction] {
        let mode = clipboardAvailable ? pasteMode : .type
        switch mode {
        case .type: return [.send(Self.typing(text))]
        case .setClipboard: return [.setClipboard(TerminalClipboard.clipboardText(fromPaste: text))]
        case .paste:
            return [.setClipboard(TerminalClipboard.clipboardText(fromPaste: text)),
                    .send(keyEvents(UInt32(ascii: "v"), modifiers: .control, action: .press))]
        }
    }

    /// Text as the host can type it: printable runs as text, line breaks and tabs as keys,
    /// other control characters dropped.
    static func typing(_ text: String) -> [InputEvent] {
        var events: [InputEvent] = []
        var run = ""
        func flush() {
            if !run.isEmpty { events.append(.text(run)) }
            run = ""
        }
        func tap(_ keysym: UInt32) {
            flush()
            events += [.key(keysym: keysym, pressed: true, modifiers: []), .key(keysym: keysym, pressed: false, modifiers: [])]
        }
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            defer { previousWasCR = scalar == "\r" }
            switch scalar {
            case "\r": tap(TerminalKeysym.returnKey)
            case "\n": if !previousWasCR { tap(TerminalKeysym.returnKey) }
            case "\t": tap(TerminalKeysym.tab)
            default:
                if scalar.value >= 0x20, scalar.value != 0x7F, !(0x80...0x9F).contains(scalar.value) { run.unicodeScalars.append(scalar) }
            }
        }
        flush()
        return events
    }
}

extension UInt32 {
    init(ascii: Unicode.Scalar) { self = ascii.value }
}
