import Foundation
import Testing
import ZRCProtocol
import ZRCKitTesting

/// `zrc-ctl` as a real process against a malicious host: it stops with a clear message, keeps its
/// memory bounded, and never lets the host's words act on the terminal.
@Suite struct HostileHostTests {
    struct Outcome {
        let status: Int32
        let output: String
        /// Peak resident memory of the `zrc-ctl` process, in MiB.
        let peakMiB: Double
    }

    /// Runs `zrc-ctl ARGS` on a thread of its own: waiting for a process blocks, and a blocked
    /// cooperative thread (two on this machine) would starve the hostile host's own tasks.
    static func runController(_ arguments: [String], against host: HostileHost, inTerminal: Bool = false) async throws -> Outcome {
        let binaries = try #require(ProcessInfo.processInfo.environment["ZRC_BIN_DIR"], "run through Tools/test.sh")
        let (identity, port) = (host.identity.publicKey.hex, host.port)
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    try runControllerBlocking(arguments, binaries: binaries, hostKey: identity, port: port, inTerminal: inTerminal)
                })
            }.start()
        }
    }

    /// Runs `zrc-ctl ARGS` (file key store, private directories) paired with the host, measuring its
    /// peak memory (the kernel's ru_maxrss of the child, through Python's resource module).
    /// `inTerminal`: inside a 100×30 pseudo-terminal (`script`), whose raw output is the outcome's.
    static func runControllerBlocking(_ arguments: [String], binaries: String, hostKey: String, port: UInt16,
                                      inTerminal: Bool) throws -> Outcome {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-hostile-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: root) }
        var environment = ProcessInfo.processInfo.environment
        for (variable, folder) in [("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_RUNTIME_DIR", "run")] {
            let directory = root.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            environment[variable] = directory.path
        }
        // The controller has "paired" with the hostile host: its key is pinned under `evil`.
        let zrcData = root.appendingPathComponent("data/zrc")
        try FileManager.default.createDirectory(at: zrcData, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let knownHosts = """
            {"version": 1, "hosts": [{"name": "evil", "hostName": "evil", "publicKey": "\(hostKey)",
              "addresses": ["127.0.0.1:\(port)"], "pairedAt": "2026-11-24T00:00:00Z"}]}
            """
        let file = zrcData.appendingPathComponent("known-hosts.json")
        try Data(knownHosts.utf8).write(to: file)
        chmod(file.path, 0o600)

        let script = "import resource, subprocess, sys\n"
            + "r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)\n"
            + "sys.stdout.buffer.write(r.stdout)\n"
            + "sys.stdout.buffer.write(b'\\nMAXRSS %d\\nSTATUS %d\\n' % (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode))\n"
        var command = ["\(binaries)/zrc-ctl"] + arguments + ["--key-store", "file"]
        let typescript = root.appendingPathComponent("typescript")
        if inTerminal {
            // Everything the viewer writes to its terminal, byte for byte, lands in `typescript`.
            let quoted = command.map { "'\($0)'" }.joined(separator: " ")
            command = ["/usr/bin/script", "-q", "-f", "-e", "-c", "stty rows 30 cols 100; exec \(quoted)", typescript.path]
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script] + command
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var text = String(decoding: bytes, as: UTF8.self)
        if inTerminal { text += String(decoding: (try? Data(contentsOf: typescript)) ?? Data(), as: UTF8.self) }
        let lines = text.split(separator: "\n")
        let rss = lines.last { $0.hasPrefix("MAXRSS ") }.flatMap { Double($0.dropFirst(7)) } ?? -1
        let status = lines.last { $0.hasPrefix("STATUS ") }.flatMap { Int32($0.dropFirst(7)) } ?? -1
        return Outcome(status: status, output: text, peakMiB: rss / 1024)
    }

    /// `zrc-ctl screenshot` against the host, into a file removed afterwards; the host is stopped.
    static func screenshot(against host: HostileHost, timeout: String) async throws -> Outcome {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-hostile-\(UUID().uuidString.prefix(8)).png")
        defer { try? FileManager.default.removeItem(at: file) }
        let outcome = try await runController(["screenshot", "evil", file.path, "--timeout", timeout], against: host)
        await host.stop()
        return outcome
    }

    /// `viewer`: the output is a viewer's, which clears the screen itself (ESC [2J is its own then).
    static func expectNoPeerEscapes(_ output: String, viewer: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
        let forbidden = ["\u{1B}]0;PWNED", "\u{202E}", "\u{200B}", "\u{07}"] + (viewer ? [] : ["\u{1B}[2J"])
        for forbidden in forbidden {
            #expect(!output.contains(forbidden), "the host's \(forbidden.debugDescription) reached the output: \(output.debugDescription)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test func escapeSequencesInEveryStringFieldNeverReachTheOutput() async throws {
        let host = try await HostileHost(hostName: "evil " + HostileMessages.escapes,
                                         script: [HostileMessages.hello, HostileMessages.notice, HostileMessages.revokedClose])
        let outcome = try await Self.runController(["ping", "evil", "--count", "3", "--interval", "0.5s"], against: host)
        await host.stop()
        #expect(outcome.status != 0, "the session ended by the host's close: \(outcome.output)")
        #expect(outcome.output.contains("PWNED"), "the host's words are shown, made harmless: \(outcome.output)")
        Self.expectNoPeerEscapes(outcome.output)
    }

    @Test func aHugeAnnouncedScreenStopsTheControllerWithoutAllocatingIt() async throws {
        let host = try await HostileHost(hostName: "evil", script: [HostileMessages.hello,
                                                                    HostileMessages.emptyFrame(id: 1, width: 65535, height: 65535)])
        let outcome = try await Self.screenshot(against: host, timeout: "10s")
        #expect(outcome.status != 0, "\(outcome.output)")
        #expect(outcome.output.contains("65535x65535"), "a clear message names the problem: \(outcome.output)")
        // 65535² × 4 bytes would be 16 GiB; the limit is checked before anything is allocated.
        #expect(outcome.peakMiB < 200, "zrc-ctl peaked at \(outcome.peakMiB) MiB")
        Self.expectNoPeerEscapes(outcome.output)
    }

    @Test func aFloodOfRectsKeepsTheControllersMemoryBounded() async throws {
        let flood = (1...8).map { HostileMessages.rectFlood(id: UInt64($0)) }
        let host = try await HostileHost(hostName: "evil", script: [HostileMessages.hello] + flood)
        let outcome = try await Self.screenshot(against: host, timeout: "20s")
        // Valid (if silly) updates; they never draw the whole screen, so no exact picture comes.
        #expect(outcome.status == 0 || outcome.output.contains("not yet exact"), "\(outcome.output)")
        // A 1920×1080 framebuffer is 8 MiB; eight floods of 65535 rects must not add up.
        #expect(outcome.peakMiB < 250, "zrc-ctl peaked at \(outcome.peakMiB) MiB")
        print("rect flood: zrc-ctl peaked at \(Int(outcome.peakMiB)) MiB")
    }

    /// A message whose fragments keep coming, a byte at a time, and never complete it: the
    /// controller gives up on it at the 60 s assembly deadline, with a clear message. (That the
    /// announced 32 MiB is never reserved is checked in FragmentationTests; resident memory could
    /// not tell, since reserved pages are not touched.)
    @Test func aMessageThatNeverEndsStopsTheControllerAtTheAssemblyDeadline() async throws {
        let (first, continuation) = HostileMessages.neverEndingMessage
        let host = try await HostileHost(hostName: "evil", script: [HostileMessages.hello],
                                         trickle: [first] + Array(repeating: continuation, count: 100_000))
        // The screen never arrives: the session is still waiting when the message's deadline passes.
        let outcome = try await Self.screenshot(against: host, timeout: "85s")
        #expect(outcome.status != 0, "\(outcome.output)")
        #expect(outcome.output.contains("took more than 60 s to arrive"), "the message names the assembly deadline: \(outcome.output)")
        #expect(outcome.peakMiB < 200, "zrc-ctl peaked at \(outcome.peakMiB) MiB")
        Self.expectNoPeerEscapes(outcome.output)
    }

    /// Pastejacking: a host (or anything on its display) sets its clipboard and the host pushes it
    /// unasked. A viewer with default settings must not write it into the local clipboard (no
    /// OSC 52 reaches the terminal); it only offers it on the status line. With
    /// `--clipboard-from-host` the same push is written — which shows the check can fail.
    @Test(arguments: [false, true])
    func anUnrequestedClipboardNeverReachesTheTerminalByDefault(allowed: Bool) async throws {
        // Several pushes, as an X client setting the clipboard again and again would cause; then
        // a ping and 4 s for the viewer to draw its status line, and a close that ends the viewer.
        let host = try await HostileHost(hostName: "evil", script: [HostileMessages.helloSharingClipboard]
            + Array(repeating: HostileMessages.unrequestedClipboard, count: 3),
            trickle: [HostileMessages.fragment(HostileMessages.ping), HostileMessages.fragment(HostileMessages.revokedClose)],
            trickleInterval: .seconds(4))
        let arguments = ["view", "evil", "--renderer", "symbols"] + (allowed ? ["--clipboard-from-host"] : [])
        let outcome = try await Self.runController(arguments, against: host, inTerminal: true)
        await host.stop()
        let osc52 = "\u{1B}]52;"
        if allowed {
            #expect(outcome.output.contains(osc52), "allowed, the copy is written: \(outcome.output.suffix(800).debugDescription)")
        } else {
            #expect(!outcome.output.contains(osc52), "an unrequested copy reached the terminal: \(outcome.output.suffix(800).debugDescription)")
            #expect(outcome.output.contains("host copied 2 lines"), "the copy is offered: \(outcome.output.suffix(800).debugDescription)")
        }
    }

    /// The viewer in a real pseudo-terminal: the host's name (on the status line), its notice and
    /// its close text are drawn, made harmless; none of its escape sequences reaches the terminal.
    @Test func theViewerDrawsNothingTheHostCouldUseToActOnTheTerminal() async throws {
        let host = try await HostileHost(hostName: "evil " + HostileMessages.escapes,
                                         script: [HostileMessages.hello, HostileMessages.notice, HostileMessages.revokedClose])
        let outcome = try await Self.runController(["view", "evil", "--renderer", "symbols"], against: host, inTerminal: true)
        await host.stop()
        #expect(outcome.status == 4, "the viewer stops: the host says it revoked this controller: \(outcome.output.suffix(600))")
        #expect(outcome.output.contains("\u{FFFD}]0;PWNED"), "the host's words are shown, made harmless")
        Self.expectNoPeerEscapes(outcome.output, viewer: true)
    }
}
