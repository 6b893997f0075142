import Foundation
import Testing

/// `zrc-ctl clipboard` against a real `zrc-host serve` sharing a private Xvfb, with xclip and xsel
/// as the host's applications: text goes both ways, large text in INCR parts, text that is not
/// UTF-8 is refused before it leaves, and a host run with --no-clipboard says it shares none.
@Suite struct ClipboardEndToEndTests {
    /// Lines of mixed scripts, `count` bytes in all (cut at a line end).
    static func text(bytes count: Int) -> String {
        let line = "ZRC clipboard ✓ grüße 日本語 — line\n"
        return String(repeating: line, count: max(1, count / line.utf8.count))
    }

    struct Rig {
        let env: EndToEndEnvironment
        let display: PrivateDisplay
        let controllerKey: String

        /// Runs a program with this test's controller environment, `input` as its stdin.
        func spawn(_ arguments: [String], input: String? = nil, role: String = "controller") async throws
            -> (status: Int32, stdout: String, stderr: String) {
            var environment = try env.environment(for: role)
            environment["DISPLAY"] = display.name
            let redirect = input.map { " < '\($0)'" } ?? ""
            return try await Spawn.runOffPool(["/bin/sh", "-c", "exec \"$@\"\(redirect)", "sh"] + arguments, environment: environment)
        }

        func ctl(_ arguments: [String], input: String? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await spawn([env.binaries.appendingPathComponent("zrc-ctl").path] + arguments + ["--key-id", controllerKey], input: input)
        }

        /// What an application on the host pastes from the clipboard.
        func hostPastes() async throws -> String {
            let result = try await spawn(["timeout", "20", "xclip", "-selection", "clipboard", "-o"])
            #expect(result.status == 0, "xclip -o: \(result.stderr)")
            return result.stdout
        }

        func file(_ name: String, _ bytes: [UInt8]) throws -> String {
            let url = env.root.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            return url.path
        }
    }

    /// A host sharing a private display, paired as `desk`.
    func withHost(extra: [String] = [], _ body: (Rig) async throws -> Void) async throws {
        let env = try EndToEndEnvironment()
        defer { env.cleanUp() }
        let display = try await PrivateDisplay.start()
        defer { display.stop() }
        let hostKey = "host-\(env.tag)", controllerKey = "ctl-\(env.tag)"
        let host = try env.launch("zrc-host", ["serve", "--listen", "127.0.0.1:0", "--key-id", hostKey, "--display", display.name] + extra,
                                  role: "host")
        try await host.terminatingAfter {
            #expect(await host.waitForOutput("zrc-host: serving"), "\(host.stderr)")
            let invite = try await env.invite(keyID: hostKey)
            let pair = try await env.pair(invite: invite, ["--name", "desk", "--key-id", controllerKey], role: "controller")
            try #require(pair.status == 0, "\(pair.stderr)")
            try await body(Rig(env: env, display: display, controllerKey: controllerKey))
        }
    }

    @Test func textTravelsBothWaysAndLargeTextInParts() async throws {
        try await withHost { rig in
            // Controller → host: what `set` reads is what the host's applications paste.
            for size in [100, 600_000] {
                let text = Self.text(bytes: size)
                let set = try await rig.ctl(["clipboard", "set", "desk"], input: try rig.file("set-\(size).txt", Array(text.utf8)))
                #expect(set.status == 0, "\(set.stderr)")
                #expect(try await rig.hostPastes() == text, "\(size) bytes set")
            }
            // Host → controller: an application copies (xsel sends large text in INCR parts).
            for size in [100, 600_000] {
                let text = Self.text(bytes: size) + "#\(size)"
                let path = try rig.file("copy-\(size).txt", Array(text.utf8))
                let copy = try await rig.spawn(["sh", "-c", "exec xsel --clipboard --input < '\(path)'"])
                #expect(copy.status == 0, "\(copy.stderr)")
                let get = try await rig.ctl(["clipboard", "get", "desk"])
                #expect(get.status == 0, "\(get.stderr)")
                #expect(get.stdout == text, "\(size) bytes copied on the host, \(get.stdout.utf8.count) read")
            }
        }
    }

    @Test func textThatIsNotUTF8IsRefusedBeforeItLeaves() async throws {
        try await withHost { rig in
            let good = try await rig.ctl(["clipboard", "set", "desk"], input: try rig.file("good.txt", Array("kept".utf8)))
            #expect(good.status == 0, "\(good.stderr)")
            let bad = try await rig.ctl(["clipboard", "set", "desk"], input: try rig.file("latin1.txt", [0x63, 0x61, 0x66, 0xE9]))
            #expect(bad.status == 1)
            #expect(bad.stderr.contains("not UTF-8"), "\(bad.stderr)")
            let huge = try await rig.ctl(["clipboard", "set", "desk"],
                                         input: try rig.file("huge.txt", [UInt8](repeating: 0x61, count: (1 << 20) + 1)))
            #expect(huge.status == 1)
            #expect(huge.stderr.contains("longer than"), "\(huge.stderr)")
            #expect(try await rig.hostPastes() == "kept", "the clipboard is unchanged")
        }
    }

    @Test func aHostWithoutClipboardSaysSo() async throws {
        try await withHost(extra: ["--no-clipboard"]) { rig in
            let get = try await rig.ctl(["clipboard", "get", "desk"])
            #expect(get.status == 1)
            #expect(get.stderr.contains("does not share its clipboard"), "\(get.stderr)")
        }
    }
}
