import Foundation
import Testing
import ZRCXTestSupport

/// `zrc-ctl view` in a real terminal (tmux) with the symbols renderer: the picture, reconnecting,
/// and the terminal handed back as it was on every way out.
extension ViewerInRealTerminals {
@Suite struct ViewerInTmuxTests {
    static let columns = 100, rows = 31

    /// Where the pattern's colours are on the pane; nil until they are all there and in place.
    static func patternProblem(_ tmux: Tmux) -> String? {
        guard let capture = try? tmux.capture(escapes: true) else { return "no capture" }
        let grid = PaneGrid(capture: capture)
        var boxes = TestPattern.Boxes()
        for row in 0..<(rows - 1) {
            for column in 0..<columns {
                if let colour = grid.colour(column: column, row: row).flatMap({ TestPattern.quadrant(of: $0) }) {
                    boxes.add(colour, x: column, y: row)
                }
            }
        }
        return boxes.problem()
    }

    static func statusLine(_ tmux: Tmux) -> String {
        ((try? tmux.capture()) ?? "").split(separator: "\n", omittingEmptySubsequences: false).dropFirst(rows - 1).first.map(String.init) ?? ""
    }

    /// The pane's modes after the viewer left: main screen, no mouse reporting, cursor shown,
    /// line wrap on; and the tty settings exactly as before.
    static func expectRestored(_ tmux: Tmux, _ files: ViewerFiles) async throws {
        _ = await Wait.until(.seconds(10)) { files.read(files.sttyAfter).isEmpty ? nil : true }
        let modes = try tmux.format("#{alternate_on} #{mouse_any_flag} #{mouse_all_flag} #{mouse_button_flag} #{mouse_sgr_flag} #{cursor_flag} #{wrap_flag}")
        #expect(modes == "0 0 0 0 0 1 1", "alternate screen, mouse modes (any, all, button, SGR), cursor, wrap: \(modes)")
        let before = files.read(files.sttyBefore), after = files.read(files.sttyAfter)
        #expect(!before.isEmpty && before == after, "tty settings before \(before), after \(after)")
    }

    @Test func showsThePatternReconnectsAfterTheHostRestartsAndRestoresTheTerminalOnQuit() async throws {
        let rig = try await ViewerRig()
        let tmux = Tmux(tag: rig.env.tag, environment: try rig.env.environment(for: "controller"))
        defer { tmux.kill() }
        let files = rig.files("tmux-reconnect")
        try tmux.start(rig.viewCommand(["--renderer", "symbols"], files: files), columns: Self.columns, rows: Self.rows)

        let shown = await Wait.until(.seconds(30)) { Self.patternProblem(tmux) == nil ? true : nil }
        #expect(shown == true, "the pattern is drawn: \(Self.patternProblem(tmux) ?? "") — \(files.read(files.log))")
        let status = Self.statusLine(tmux)
        #expect(status.contains("desk") && status.contains("connected") && status.contains("symbols"), "\(status)")

        await rig.stopHost()
        let waiting = await Wait.until(.seconds(30)) { Self.statusLine(tmux).contains("reconnecting in") ? true : nil }
        #expect(waiting == true, "the viewer says it is reconnecting: \(Self.statusLine(tmux))")
        try await rig.restartHost()
        // Attempts follow 2 s, 4 s, 8 s, then every 10 s after the loss (ReconnectDecisionTests
        // check the schedule on a fake clock): whenever the host is back, the next attempt is at
        // most 10 s away. The deadline only bounds the wait, generously for a loaded machine.
        let back = await Wait.until(.seconds(60)) { Self.statusLine(tmux).contains("connected") && Self.patternProblem(tmux) == nil ? true : nil }
        #expect(back == true, "reconnected: \(Self.statusLine(tmux)) — \(files.read(files.log))")

        try tmux.sendKeys(["C-]", "q"])
        #expect(await files.exitStatus(within: .seconds(15)) == 0, "\(files.read(files.log))")
        try await Self.expectRestored(tmux, files)
        #expect(try tmux.capture().contains("Left the viewer of `desk`."))
        await rig.close()
    }

    /// A host that answers with a new key: its refusal is unauthenticated (anyone on the path
    /// could send it), so the viewer keeps trying with backoff and says why, marked unverified,
    /// until the user leaves (or a long streak; ReconnectDecisionTests).
    @Test func aHostWithANewKeyIsShownAsAnUnverifiedRefusalAndRetried() async throws {
        let rig = try await ViewerRig()
        let tmux = Tmux(tag: rig.env.tag, environment: try rig.env.environment(for: "controller"))
        defer { tmux.kill() }
        let files = rig.files("tmux-new-key")
        try tmux.start(rig.viewCommand(["--renderer", "symbols"], files: files), columns: Self.columns, rows: Self.rows)
        #expect(await Wait.until(.seconds(30)) { Self.patternProblem(tmux) == nil ? true : nil } == true)

        await rig.stopHost()
        try await rig.restartHost(keyID: "other-\(rig.env.tag)")
        let shown = await Wait.until(.seconds(60)) { Self.statusLine(tmux).contains("refused: host key mismatch (unverified)") ? true : nil }
        #expect(shown == true, "\(Self.statusLine(tmux)) — \(files.read(files.log))")
        try tmux.sendKeys(["C-]", "q"])
        #expect(await files.exitStatus(within: .seconds(15)) == 0, "the user leaves: \(files.read(files.log))")
        try await Self.expectRestored(tmux, files)
        await rig.close()
    }

    /// The clipboard through a real terminal: what an application on the host copies is offered
    /// on the status line and stays out of tmux's clipboard until Ctrl+] c takes it (then it
    /// arrives as OSC 52, `set-clipboard on`), and a bracketed paste in the clipboard paste mode
    /// (Ctrl+] p) reaches the host's clipboard, where xclip reads it.
    @Test func copiesReachTheTerminalAndPastesTheHostsClipboard() async throws {
        let rig = try await ViewerRig()
        let tmux = Tmux(tag: rig.env.tag, environment: try rig.env.environment(for: "controller"))
        defer { tmux.kill() }
        let files = rig.files("tmux-clipboard")
        try tmux.start(rig.viewCommand(["--renderer", "symbols"], files: files), columns: Self.columns, rows: Self.rows)
        try tmux.run(["set-option", "-g", "set-clipboard", "on"])
        #expect(await Wait.until(.seconds(30)) { Self.patternProblem(tmux) == nil ? true : nil } == true, "\(files.read(files.log))")

        let copied = "copied on the host ✓ \(rig.env.tag)"
        let source = rig.env.root.appendingPathComponent("copied.txt")
        try Data(copied.utf8).write(to: source)
        try await XTool.startDaemon(["xclip", "-selection", "clipboard", "-i", source.path], display: rig.display.display)
        let offered = await Wait.until(.seconds(30)) { Self.statusLine(tmux).contains("Ctrl+] c to take") ? true : nil }
        #expect(offered == true, "the copy is offered: \(Self.statusLine(tmux)) — \(files.read(files.log))")
        #expect((try? tmux.run(["show-buffer"])) != copied, "the offer put nothing into tmux's clipboard")
        try tmux.sendKeys(["C-]", "c"])
        let buffer = await Wait.until(.seconds(30)) { (try? tmux.run(["show-buffer"])).flatMap { $0 == copied ? $0 : nil } }
        #expect(buffer == copied, "tmux's clipboard: \((try? tmux.run(["show-buffer"])) ?? "none") — \(files.read(files.log))")
        #expect(await Wait.until(.seconds(10)) { Self.statusLine(tmux).contains("copied") ? true : nil } == true, "\(Self.statusLine(tmux))")

        // Type → paste (clipboard + Ctrl+V) → clipboard only.
        try tmux.sendKeys(["C-]", "p"])
        try tmux.sendKeys(["C-]", "p"])
        #expect(await Wait.until(.seconds(10)) { Self.statusLine(tmux).contains("clipboard only") ? true : nil } == true,
                "\(Self.statusLine(tmux))")
        let pasted = "pasted in the terminal\nsecond line"
        try tmux.run(["set-buffer", "-b", "zrc", pasted])
        try tmux.run(["paste-buffer", "-p", "-b", "zrc", "-t", "main"])
        // xclip waits for the owner's answer: off Swift's few threads, so the host keeps running.
        var onHost: String?
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = rig.display.display
        let deadline = ContinuousClock.now + .seconds(30)
        while onHost != pasted, ContinuousClock.now < deadline {
            onHost = try? await Spawn.runOffPool(["timeout", "10", "xclip", "-selection", "clipboard", "-o"], environment: environment).stdout
            if onHost != pasted { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(onHost == pasted, "the host's clipboard after the paste — \(files.read(files.log))")

        try tmux.sendKeys(["C-]", "q"])
        #expect(await files.exitStatus(within: .seconds(15)) == 0, "\(files.read(files.log))")
        await rig.close()
    }

    @Test func aTerminationSignalWhileTheHostIsGoneRestoresTheTerminal() async throws {
        let rig = try await ViewerRig()
        let tmux = Tmux(tag: rig.env.tag, environment: try rig.env.environment(for: "controller"))
        defer { tmux.kill() }
        let files = rig.files("tmux-signal")
        try tmux.start(rig.viewCommand([], files: files), columns: Self.columns, rows: Self.rows)
        #expect(await Wait.until(.seconds(30)) { Self.patternProblem(tmux) == nil ? true : nil } == true, "tmux gets symbols automatically")

        await rig.stopHost()
        #expect(await Wait.until(.seconds(30)) { Self.statusLine(tmux).contains("reconnecting in") ? true : nil } == true)
        let shell = try tmux.format("#{pane_pid}")
        try PrivateDisplay.run("/usr/bin/pkill", ["-TERM", "-P", shell, "zrc-ctl"])
        #expect(await files.exitStatus(within: .seconds(15)) == 143)
        try await Self.expectRestored(tmux, files)
        await rig.close()
    }
}
}
