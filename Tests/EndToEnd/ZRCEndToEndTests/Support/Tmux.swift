import Foundation

/// A private tmux server (its own socket) running one window: a real terminal whose screen,
/// modes and tty settings the tests can read.
struct Tmux {
    let socket: String
    let environment: [String: String]

    init(tag: String, environment: [String: String]) {
        socket = "zrc-e2e-\(tag)"
        self.environment = environment
    }

    /// Runs a tmux command and returns its output; throws with tmux's message on failure.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let result = try Spawn.run(["tmux", "-L", socket, "-f", "/dev/null"] + arguments, environment: environment)
        guard result.status == 0 else {
            throw SetupError("tmux \(arguments.joined(separator: " ")) failed: \(result.stderr) (Tools/install-deps.sh installs tmux)")
        }
        return result.stdout
    }

    /// A detached session of `columns` × `rows` running `command` through sh.
    func start(_ command: String, columns: Int, rows: Int) throws {
        try run(["new-session", "-d", "-s", "main", "-x", "\(columns)", "-y", "\(rows)", "sh", "-c", command])
    }

    /// The screen's text; with `escapes`, including colour and attribute sequences.
    func capture(escapes: Bool = false) throws -> String {
        try run(["capture-pane", "-p", "-t", "main"] + (escapes ? ["-e"] : []))
    }

    /// tmux formats about the pane, e.g. `#{alternate_on}`.
    func format(_ format: String) throws -> String {
        try run(["display-message", "-p", "-t", "main", format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func sendKeys(_ keys: [String]) throws {
        try run(["send-keys", "-t", "main"] + keys)
    }

    func kill() {
        _ = try? run(["kill-server"])
    }
}

/// A tmux pane captured with `-e`, turned back into cells with their colours.
struct PaneGrid {
    struct Cell {
        var character: Character
        var foreground: UInt32?
        var background: UInt32?
    }

    var rows: [[Cell]] = []

    init(capture: String) {
        for line in capture.split(separator: "\n", omittingEmptySubsequences: false) {
            var row: [Cell] = []
            var foreground: UInt32?, background: UInt32?, inverse = false
            var scalars = Array(line.unicodeScalars)[...]
            while let scalar = scalars.first {
                scalars = scalars.dropFirst()
                if scalar == "\u{1B}", scalars.first == "[" {
                    let body = scalars.dropFirst().prefix { !("@"..."~").contains($0) }
                    scalars = scalars.dropFirst(body.count + 2)
                    let numbers = String(String.UnicodeScalarView(body)).split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
                    var index = 0
                    while index < numbers.count {
                        switch numbers[index] {
                        case 0: (foreground, background, inverse) = (nil, nil, false)
                        case 7: inverse = true
                        case 27: inverse = false
                        case 39: foreground = nil
                        case 49: background = nil
                        case 38 where index + 4 < numbers.count && numbers[index + 1] == 2:
                            foreground = UInt32(numbers[index + 2] << 16 | numbers[index + 3] << 8 | numbers[index + 4])
                            index += 4
                        case 48 where index + 4 < numbers.count && numbers[index + 1] == 2:
                            background = UInt32(numbers[index + 2] << 16 | numbers[index + 3] << 8 | numbers[index + 4])
                            index += 4
                        default: break
                        }
                        index += 1
                    }
                    continue
                }
                row.append(Cell(character: Character(scalar), foreground: inverse ? background : foreground,
                                background: inverse ? foreground : background))
            }
            rows.append(row)
        }
    }

    /// The colour a cell shows most of: its background for a space, else both halves agreeing.
    func colour(column: Int, row: Int) -> UInt32? {
        guard row < rows.count, column < rows[row].count else { return nil }
        let cell = rows[row][column]
        if cell.character == " " { return cell.background }
        return cell.foreground == cell.background ? cell.foreground : cell.background
    }
}
