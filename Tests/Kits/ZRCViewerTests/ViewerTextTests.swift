import Testing
import ZRCViewer

/// The text the viewer writes besides pictures: changed rows, the status line, the modes.
@Suite struct ViewerTextTests {
    static let area = TerminalArea(column: 0, row: 0, columns: 10, rows: 3, cellWidth: 4, cellHeight: 8)

    @Test func onlyChangedRowsAreWritten() {
        var diff = TextFrameDiff()
        let first = String(decoding: diff.update(lines: "aaa\nbbb\nccc", in: Self.area), as: UTF8.self)
        #expect(first.contains("\u{1B}[1;1H") && first.contains("\u{1B}[2;1H") && first.contains("\u{1B}[3;1H"))
        let second = String(decoding: diff.update(lines: "aaa\nbXb\nccc", in: Self.area), as: UTF8.self)
        #expect(second == "\u{1B}[2;1H\u{1B}[0mbXb\u{1B}[0m")
        #expect(diff.update(lines: "aaa\nbXb\nccc", in: Self.area).isEmpty)
        diff.invalidate()
        #expect(String(decoding: diff.update(lines: "aaa\nbXb\nccc", in: Self.area), as: UTF8.self).contains("\u{1B}[1;1H"))
    }

    @Test(arguments: [20, 80, 200])
    func theStatusLineFillsItsRowExactly(width: Int) {
        var status = ViewerStatus(host: "desk", renderer: "sixel")
        status.state = .connected(viewOnly: false)
        status.framesPerSecond = 59.6
        status.inputToFrameMillis = 4.4
        status.bytesPerSecond = 2_345_678
        status.quality = 80
        status.pathRate = 1_212_500
        status.queueMillis = 3.4
        let line = status.line(width: width)
        #expect(line.count == width)
        if width >= 200 {
            #expect(line.contains("desk") && line.contains("connected") && line.contains("sixel") && line.contains("60 fps"))
            #expect(line.contains("input→frame 4 ms") && line.contains("2.3 MB/s") && line.contains("q80"))
            #expect(line.contains("path 9.7 Mbit/s, queue 3 ms"))
        }
    }

    @Test func theStatusLineSaysWhatTheSessionIsDoing() {
        var status = ViewerStatus(host: "desk", renderer: "symbols")
        status.state = .reconnecting(seconds: 4, attempt: 2, reason: "connection lost")
        #expect(status.line(width: 120).contains("connection lost; reconnecting in 4 s (attempt 2)"))
        status.state = .connected(viewOnly: true)
        #expect(status.line(width: 120).contains("view only"))
        status.notice = "copied 12 bytes from the host's clipboard\u{1B}[2J"
        let line = status.line(width: 160)
        #expect(line.contains("view only │ copied 12 bytes from the host's clipboard"), "\(line)")
        #expect(!line.unicodeScalars.contains { $0.value == 0x1B }, "notices are sanitized: they can carry a host's words")
    }

    @Test func peerWordsOnTheStatusLineCannotActOnTheTerminal() {
        var status = ViewerStatus(host: "desk\u{1B}]0;pwned\u{7}", renderer: "symbols")
        status.state = .stopped("the host revoked this controller (\u{1B}[2J\u{202E}gotcha)")
        let line = status.line(width: 200)
        #expect(!line.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x7 || $0.value == 0x202E }, "\(line.debugDescription)")
        #expect(line.contains("revoked this controller"))
    }

    @Test(arguments: [(false, false), (true, false), (false, true), (true, true)])
    func leavingUndoesEveryModeEnteringSet(pixelMouse: Bool, kittyKeyboard: Bool) throws {
        let modes = TerminalModes(pixelMouse: pixelMouse, kittyKeyboard: kittyKeyboard)
        let set = try Regex(#"\[\?(\d+)h"#)
        for match in modes.enter.matches(of: set) {
            let number = match.output[1].substring ?? ""
            #expect(modes.leave.contains("\u{1B}[?\(number)l"), "mode \(number) is switched off again")
        }
        #expect(modes.enter.contains("\u{1B}[>1u") == kittyKeyboard && modes.leave.contains("\u{1B}[<u") == kittyKeyboard)
        #expect(modes.leave.hasSuffix("\u{1B}[?1049l"), "the main screen comes back last")
        #expect(modes.leave.contains("\u{1B}[?25h"), "the cursor is shown")
    }

    @Test func theLayoutKeepsTheLastRowForTheStatusAndFindsTheCellSize() {
        let reported = ViewerLayout(columns: 100, rows: 30, reportedCell: (9, 18), windowPixels: (0, 0))
        #expect(reported.cellWidth == 9 && reported.cellHeight == 18 && reported.statusRow == 29)
        let area = reported.area(pixelsPerCell: (9, 18))
        #expect(area.rows == 29 && area.columns == 100 && area.pixelWidth == 900 && area.pixelHeight == 522)
        let measured = ViewerLayout(columns: 100, rows: 30, reportedCell: nil, windowPixels: (1000, 600))
        #expect(measured.cellWidth == 10 && measured.cellHeight == 20)
        let unknown = ViewerLayout(columns: 100, rows: 30, reportedCell: nil, windowPixels: (0, 0))
        #expect(unknown.cellWidth == ViewerLayout.fallbackCell.width && unknown.cellHeight == ViewerLayout.fallbackCell.height)
        #expect(ViewerLayout(columns: 0, rows: 0, reportedCell: nil, windowPixels: (0, 0)).rows == 2, "always room for a row and the status")
    }

    @Test func theHelpFitsInsideTheArea() {
        let area = TerminalArea(column: 0, row: 0, columns: 30, rows: 5, cellWidth: 4, cellHeight: 8)
        let help = String(decoding: HelpOverlay.draw(in: area), as: UTF8.self)
        let rows = help.matches(of: try! Regex(#"\[(\d+);\d+H"#)).compactMap { Int($0.output[1].substring ?? "") }
        #expect(!rows.isEmpty && rows.allSatisfy { (1...5).contains($0) })
    }
}
