internal import ExtrasBase64
public import ZRCProtocol

/// The local terminal's clipboard, written with OSC 52 (`ESC ] 52 ; c ; base64 ESC \`): what
/// xterm (with `allowWindowOps` or `disallowedWindowOps` leaving SetSelection), kitty, foot,
/// WezTerm and tmux (`set-clipboard on`) accept. Terminals that do not support it ignore the
/// sequence. The text travels base64-encoded, so nothing of it can act as a terminal control.
public enum TerminalClipboard {
    /// The sequence that puts `content` into the terminal's clipboard (`c`) or primary
    /// selection (`p`); nil for content that is not UTF-8 text.
    public static func osc52(_ content: ClipboardContent) -> [UInt8]? {
        guard content.text != nil else { return nil }
        let target = switch content.selection {
        case .clipboard: "c"
        case .primary: "p"
        }
        return Array("\u{1B}]52;\(target);".utf8) + Array(Base64.encodeToString(bytes: content.data).utf8) + [0x1B, 0x5C]
    }

    /// Pasted text with the terminal's line ends (CR, which terminals send for Enter and line
    /// breaks in a paste) turned into the LF the host's applications expect in a clipboard.
    public static func clipboardText(fromPaste text: String) -> String {
        var out = String.UnicodeScalarView()
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            defer { previousWasCR = scalar == "\r" }
            if scalar == "\n", previousWasCR { continue }
            out.append(scalar == "\r" ? "\n" : scalar)
        }
        return String(out)
    }
}

/// What a paste in the viewer does (Ctrl+] p cycles through them).
public enum PasteMode: Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// Typed on the host, character by character (works in every application).
    case type
    /// Put into the host's clipboard, then Ctrl+V pressed (desktop applications).
    case paste
    /// Put into the host's clipboard only; paste it there yourself.
    case setClipboard

    public var description: String {
        switch self {
        case .type: "paste types the text"
        case .paste: "paste sets the host's clipboard and presses Ctrl+V"
        case .setClipboard: "paste sets the host's clipboard only"
        }
    }

    var next: PasteMode {
        switch self {
        case .type: .paste
        case .paste: .setClipboard
        case .setClipboard: .type
        }
    }
}
