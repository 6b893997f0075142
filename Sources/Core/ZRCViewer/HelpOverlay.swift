/// The help box the escape chord's `?` shows over the picture.
public enum HelpOverlay {
    public static let lines = [
        "ZRC viewer — keys after Ctrl+]",
        "",
        "  q        detach (leave the viewer)",
        "  + / -    zoom in / out",
        "  arrows   pan the zoomed view",
        "  0        whole screen (or monitor) again",
        "  m        next monitor / all monitors",
        "  p        paste: type it / via the host's clipboard",
        "  c        take the host's clipboard into this one",
        "  ?        show / hide this help",
        "  Ctrl+]   send Ctrl+] itself",
        "",
        "Everything else goes to the remote screen:",
        "keys, mouse (click, drag, wheel), paste.",
    ]

    /// Output that draws the box centred in `area`, in reverse video.
    public static func draw(in area: TerminalArea) -> [UInt8] {
        let width = min(area.columns, (lines.map(\.count).max() ?? 0) + 4)
        let top = area.row + max(0, (area.rows - lines.count - 2) / 2)
        let left = area.column + max(0, (area.columns - width) / 2)
        var output = ""
        for (index, text) in ([""] + lines + [""]).enumerated() where top + index < area.row + area.rows {
            let content = Array("  " + text)
            let padded = String(content.prefix(width)) + String(repeating: " ", count: max(0, width - content.count))
            output += "\u{1B}[\(top + index + 1);\(left + 1)H\u{1B}[0;7m\(padded)"
        }
        return Array((output + "\u{1B}[0m").utf8)
    }
}
