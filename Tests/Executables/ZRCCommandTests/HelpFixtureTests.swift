import ArgumentParser
import Foundation
import Testing
@testable import ZRCControllerCommands
@testable import ZRCHostCommands

/// Every `--help` of both programs, pinned in Fixtures/ (one file per command, e.g.
/// `zrc-ctl.input.move.txt`, rendered at 100 columns). A change to an option, an abstract or a
/// discussion shows up here as a diff. To accept it, rewrite the fixtures and commit them:
///
///     ZRC_UPDATE_HELP=1 swift test --filter ZRCCommandTests
@Suite("Pinned help")
struct HelpFixtureTests {
    static var programs: [String: any ParsableCommand.Type] { ["zrc-host": ZRCHostCommand.self, "zrc-ctl": ZRCControllerCommand.self] }

    /// "zrc-host", "zrc-host.serve", …: the fixtures' names without `.txt`.
    static var pageNames: [String] {
        [ZRCHostCommand.self, ZRCControllerCommand.self as any ParsableCommand.Type].flatMap { root in
            CommandPage.all(of: root).map { $0.words.joined(separator: ".") }
        }
    }

    @Test("help is pinned", arguments: pageNames)
    func helpIsPinned(_ name: String) throws {
        let program = try #require(name.split(separator: ".").first.map(String.init))
        let root = try #require(Self.programs[program])
        let page = try #require(CommandPage.all(of: root).first { $0.words.joined(separator: ".") == name })
        try assertHelp(root, page)
    }

    @Test("every command of both programs has a page, and every page a command")
    func pagesMatchCommands() throws {
        let expected = Set(Self.pageNames.map { $0 + ".txt" })
        #expect(expected.count == Self.pageNames.count, "two commands map to one fixture name")
        // Both trees as declared: zrc-host is the root, 5 subcommands and 2 + 2 under `controllers` and
        // `sessions`; zrc-ctl the root, 12 subcommands and 5 + 2 under `input` and `clipboard`.
        #expect(CommandPage.all(of: ZRCHostCommand.self).count == 10)
        #expect(CommandPage.all(of: ZRCControllerCommand.self).count == 20)
        if HelpFixtures.updating {
            for stale in try HelpFixtures.names(in: HelpFixtures.sourceDirectory).subtracting(expected) {
                try FileManager.default.removeItem(at: HelpFixtures.sourceDirectory.appendingPathComponent(stale))
            }
            return
        }
        let directory = try #require(HelpFixtures.bundledDirectory)
        let present = try HelpFixtures.names(in: directory)
        #expect(present.subtracting(expected).sorted() == [], "pinned help of no command (ZRC_UPDATE_HELP=1 removes it)")
        #expect(expected.subtracting(present).sorted() == [], "commands without pinned help (ZRC_UPDATE_HELP=1 writes it)")
    }

    @Test("--version prints the release and exits 0", arguments: ["zrc-host", "zrc-ctl"])
    func version(_ program: String) throws {
        let root = try #require(Self.programs[program])
        do {
            let parsed = try root.parseAsRoot(["--version"])
            Issue.record("--version parsed as \(type(of: parsed))")
        } catch {
            #expect(root.exitCode(for: error) == .success)
            #expect(root.message(for: error) == root.configuration.version)
            #expect(!root.configuration.version.isEmpty)
        }
    }

    @Test("the diff in a mismatch's message marks removed and added lines")
    func diffMarksChanges() {
        #expect(lineDiff(from: "a\nb\nc\n", to: "a\nB\nc\n") == " a\n–b\n+B\n c\n ")
        #expect(lineDiff(from: "a\n", to: "a\nz\n") == " a\n+z\n ")
    }
}
