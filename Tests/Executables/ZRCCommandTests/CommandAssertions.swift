import ArgumentParser
import Foundation
import Testing

// Helpers in the manner of swift-argument-parser's own test helpers (`AssertParseCommand`,
// `AssertParseCommandErrorMessage`, `AssertHelp`, `AssertEqualStrings`), which are not a product
// a package can depend on, written for Swift Testing. Everything here only parses: no command of
// ZRC's is run (only swift-argument-parser's own help command, which just throws the help request),
// so no test touches the network, a keyring, a file of the user's or an X display.

/// Parses `arguments` as the program would (`Root.parseAsRoot`: the subcommand, defaults and
/// every `validate()`), expects a `Command`, and hands it to `check`.
func assertParse<Command: ParsableCommand>(
    _ root: any ParsableCommand.Type, _ arguments: [String], as _: Command.Type,
    sourceLocation: SourceLocation = #_sourceLocation, _ check: (Command) throws -> Void
) rethrows {
    let parsed: any ParsableCommand
    do {
        parsed = try root.parseAsRoot(arguments)
    } catch {
        Issue.record("\(arguments) did not parse: \"\(root.message(for: error))\" (exit \(root.exitCode(for: error).rawValue))",
                     sourceLocation: sourceLocation)
        return
    }
    guard let command = parsed as? Command else {
        Issue.record("\(arguments) parsed as \(type(of: parsed)), not \(Command.self)", sourceLocation: sourceLocation)
        return
    }
    try check(command)
}

/// Parses `arguments` and expects a `Command`, whatever its values.
func assertParse<Command: ParsableCommand>(
    _ root: any ParsableCommand.Type, _ arguments: [String], as command: Command.Type, sourceLocation: SourceLocation = #_sourceLocation
) {
    assertParse(root, arguments, as: command, sourceLocation: sourceLocation) { _ in }
}

/// Parses `arguments` and expects the program to refuse them, as it would before running
/// anything: `message` is what it prints after "Error: ", `exitCode` what it exits with.
func assertParseFailure(
    _ root: any ParsableCommand.Type, _ arguments: [String], message: String, exitCode: ExitCode = .validationFailure,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        let parsed = try root.parseAsRoot(arguments)
        Issue.record("\(arguments) parsed as \(type(of: parsed)) instead of failing with \"\(message)\"", sourceLocation: sourceLocation)
    } catch {
        #expect(root.message(for: error) == message, "message for \(arguments)", sourceLocation: sourceLocation)
        #expect(root.exitCode(for: error) == exitCode, "exit code for \(arguments)", sourceLocation: sourceLocation)
    }
}

/// A command of a program, found by walking its subcommands from the root.
struct CommandPage {
    /// The words that name it on the command line, program first: ["zrc-ctl", "input", "move"].
    let words: [String]
    let type: any ParsableCommand.Type

    /// Where its pinned help lives in Fixtures/: "zrc-ctl.input.move.txt".
    var fixtureName: String { words.joined(separator: ".") + ".txt" }

    /// The root and every subcommand, depth first, in declaration order.
    static func all(of root: any ParsableCommand.Type) -> [CommandPage] {
        func walk(_ type: any ParsableCommand.Type, _ words: [String]) -> [CommandPage] {
            [CommandPage(words: words, type: type)]
                + type.configuration.subcommands.flatMap { walk($0, words + [$0._commandName]) }
        }
        return walk(root, [root._commandName])
    }
}

/// The help pinned in Fixtures/: read from the test bundle's copy; written into the source tree
/// (next to this file) when `ZRC_UPDATE_HELP=1` is set.
enum HelpFixtures {
    static let columns = 100

    static var updating: Bool { ProcessInfo.processInfo.environment["ZRC_UPDATE_HELP"] == "1" }

    /// Tests/Executables/ZRCCommandTests/Fixtures in the checkout.
    static var sourceDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    }

    /// The committed fixtures as the build copied them into the test bundle.
    static var bundledDirectory: URL? { Bundle.module.url(forResource: "Fixtures", withExtension: nil) }

    /// The `.txt` files in `directory`, by name.
    static func names(in directory: URL) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".txt") })
    }
}

/// Compares `page`'s `--help` (as `Root.helpMessage(for:columns:)` renders it, 100 columns) with
/// its pinned file, or writes the file under `ZRC_UPDATE_HELP=1`. Also checks that asking for it
/// on the command line (`… --help`) ends cleanly with that same text.
func assertHelp(_ root: any ParsableCommand.Type, _ page: CommandPage, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let help = root.helpMessage(for: page.type, includeHidden: false, columns: HelpFixtures.columns)
    let command = page.words.joined(separator: " ")

    do {
        // `--help` parses to swift-argument-parser's own help command, whose `run()` only throws
        // the help request that `main()` prints; none of ZRC's commands runs.
        var parsed = try root.parseAsRoot(Array(page.words.dropFirst()) + ["--help"])
        if String(describing: type(of: parsed)) == "HelpCommand" { try parsed.run() }
        Issue.record("`\(command) --help` parsed as \(type(of: parsed)) and did not end with the help", sourceLocation: sourceLocation)
    } catch {
        #expect(root.exitCode(for: error) == .success, "`\(command) --help` exit code", sourceLocation: sourceLocation)
        #expect(root.fullMessage(for: error, columns: HelpFixtures.columns) == help,
                "`\(command) --help` prints what helpMessage(for:) renders", sourceLocation: sourceLocation)
    }

    // Stored ending in exactly one line break (as text files do; swift-argument-parser ends some
    // pages with one and others without): trailing line breaks are not what the test pins.
    var text = help
    while text.hasSuffix("\n") { text.removeLast() }
    text += "\n"
    if HelpFixtures.updating {
        let file = HelpFixtures.sourceDirectory.appendingPathComponent(page.fixtureName)
        try FileManager.default.createDirectory(at: HelpFixtures.sourceDirectory, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file, options: .atomic)
        return
    }
    let directory = try #require(HelpFixtures.bundledDirectory, "no Fixtures directory in the test bundle", sourceLocation: sourceLocation)
    let file = directory.appendingPathComponent(page.fixtureName)
    guard let pinned = try? String(contentsOf: file, encoding: .utf8) else {
        Issue.record("no pinned help for `\(command)` (Fixtures/\(page.fixtureName)); write it with ZRC_UPDATE_HELP=1",
                     sourceLocation: sourceLocation)
        return
    }
    if pinned != text {
        Issue.record("""
            `\(command) --help` differs from Fixtures/\(page.fixtureName) (– pinned, + now); \
            if the change is meant, rerun with ZRC_UPDATE_HELP=1 and commit the fixture:
            \(lineDiff(from: pinned, to: text))
            """, sourceLocation: sourceLocation)
    }
}

/// A line diff of two texts, as `AssertEqualStrings` prints it: "–" removed, "+" added, " " kept.
func lineDiff(from old: String, to new: String) -> String {
    let oldLines = old.components(separatedBy: "\n"), newLines = new.components(separatedBy: "\n")
    var removals: [Int: String] = [:], insertions: [Int: String] = [:]
    for change in newLines.difference(from: oldLines) {
        switch change {
        case .remove(let offset, let line, _): removals[offset] = line
        case .insert(let offset, let line, _): insertions[offset] = line
        }
    }
    var result: [String] = []
    var oldIndex = 0, newIndex = 0
    while oldIndex < oldLines.count || newIndex < newLines.count {
        if let line = removals[oldIndex] {
            result.append("–" + line)
            oldIndex += 1
        } else if let line = insertions[newIndex] {
            result.append("+" + line)
            newIndex += 1
        } else {
            result.append(" " + (oldIndex < oldLines.count ? oldLines[oldIndex] : ""))
            oldIndex += 1
            newIndex += 1
        }
    }
    return result.joined(separator: "\n")
}
