import ArgumentParser
import Foundation
import ZRCCommandSupport
import ZRCControllerKit
import ZRCProtocol

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List a directory on a host (name, type, size, modified).",
        discussion: """
            NAME:DIR is relative to the host's transfer root (its home directory unless host.json's \
            fileRoot says otherwise); NAME: alone is the root. Names that are not valid UTF-8 or hold control \
            characters are shown with their bytes escaped (\\xNN) and marked invalid: they cannot be copied.
            """)

    @OptionGroup var options: ControllerOptions

    @Argument(help: "NAME:[DIR], e.g. `office:` or `office:Documents`.")
    var target: String

    @Flag(help: "One JSON object per entry (name, type, size, modified, mode, valid).")
    var json = false

    func validate() throws {
        guard RemoteSpec(target) != nil else { throw ValidationError("`\(target)` is not NAME:[DIR]") }
    }

    func run() async throws {
        try await CommandRunner.run(program: "zrc-ctl") {
            guard let spec = RemoteSpec(target) else { return }
            let path = try spec.path()
            let link = try await FileSession.open(options, host: spec.host)
            defer { Task { await link.close() } }
            let entries: [FileEntry]
            do {
                entries = try await link.session.files.list(path)
            } catch {
                throw FileSession.commandError(error)
            }
            for entry in entries {
                if json {
                    Console.line(FileSession.json([
                        "name": entry.shownName, "type": entry.kind.description, "size": entry.size,
                        "modified": FileSession.isoDate(entry.modifiedMicros), "mode": String(entry.mode, radix: 8),
                        "valid": (try? entry.validName.get()) != nil,
                    ]))
                } else {
                    let kind = entry.kind == .directory ? "d" : entry.kind == .symbolicLink ? "l" : entry.kind == .file ? "-" : "?"
                    let invalid = (try? entry.validName.get()) == nil ? "  (invalid name)" : ""
                    let size = String(entry.size)
                    Console.line("\(kind) \(String(repeating: " ", count: max(0, 14 - size.count)))\(size)  \(FileSession.isoDate(entry.modifiedMicros))  \(entry.shownName)\(entry.kind == .directory ? "/" : "")\(invalid)")
                }
            }
        }
    }
}

/// `NAME:PATH` as the file commands take it: a colon before any slash marks a remote.
struct RemoteSpec {
    let host: String
    let pathText: String

    init?(_ text: String) {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex, !text[..<colon].contains("/") else { return nil }
        host = String(text[..<colon])
        pathText = String(text[text.index(after: colon)...])
    }

    func path() throws(CommandError) -> RemotePath {
        do {
            return try RemotePath(parsing: pathText)
        } catch {
            throw CommandError(.failure, "the remote path \(error)")
        }
    }
}
