import ArgumentParser
import Foundation
import ZRCCommandSupport
import ZRCControllerKit
import ZRCProtocol
import ZRCSystem
import ZRCStorage

struct ClipboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clipboard",
        abstract: "Read or set a host's clipboard (UTF-8 text, up to 1 MiB).",
        discussion: """
            `get` writes the host's clipboard to standard output (exactly, when it is a pipe or a file; made \
            safe to show, when it is a terminal). `set` reads standard input and puts it into the host's \
            clipboard, where its applications paste it. The session needs control of the host (or a host that \
            lets watchers use the clipboard).
            """,
        subcommands: [Get.self, Set.self])

    struct Target: ParsableArguments {
        @OptionGroup var options: ControllerOptions

        @Argument(help: "The host's name, as `zrc-ctl devices` lists it.")
        var name: String

        @Flag(help: "The PRIMARY selection (what was last selected with the mouse) instead of the clipboard; the host must share it.")
        var primary = false

        @Option(help: "How long to wait for the host, e.g. 10s.")
        var timeout: String = "10s"

        var selection: ClipboardSelection { primary ? .primary : .clipboard }

        func validate() throws {
            guard DurationText.duration(timeout).map({ $0 > .zero }) == true else {
                throw ValidationError("--timeout `\(timeout)` is not a duration (e.g. 10s, 1.5m)")
            }
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write the host's clipboard text to standard output.")
        @OptionGroup var target: Target

        func run() async throws {
            try await CommandRunner.run(program: "zrc-ctl") {
                let content = try await ClipboardExchange(target: target).run(needsAnswer: true) { session in
                    try await session.send(.clipboardRequest(target.selection))
                } until: { message in
                    switch message {
                    case .clipboard(let content) where content.selection == target.selection: return .success(content)
                    case .error(let code, let text) where [.clipboardUnavailable, .overloaded, .unsupported].contains(code):
                        return .failure(CommandError(.failure, TerminalSafeText.sanitized(text)))
                    default: return nil
                    }
                }
                guard let text = content?.text else { throw CommandError(.failure, "the host sent clipboard content that is not UTF-8 text") }
                if isatty(STDOUT_FILENO) == 1 {
                    // For a person: escapes and controls made visible, line breaks kept.
                    Console.line(text.hasSuffix("\n") ? String(text.dropLast()) : text)
                } else {
                    FileHandle.standardOutput.write(Data(text.utf8))
                }
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Put standard input (UTF-8 text) into the host's clipboard.")
        @OptionGroup var target: Target

        func run() async throws {
            try await CommandRunner.run(program: "zrc-ctl") {
                let input = try Self.readStandardInput()
                _ = try await ClipboardExchange(target: target).run(needsAnswer: false) { session in
                    try await session.send(.clipboard(ClipboardContent(selection: target.selection, mimeType: ClipboardContent.utf8Text,
                                                                       data: input)))
                    // Answered only after the host handled the clipboard (and said if it refused it).
                    _ = try await session.ping()
                    await session.close(text: "clipboard set")
                } until: { message in
                    guard case .error(let code, let text) = message,
                          [.clipboardRefused, .overloaded, .unsupported].contains(code) else { return nil }
                    return .failure(CommandError(.failure, "the host did not take the text: \(TerminalSafeText.sanitized(text))"))
                }
                Console.warn("zrc-ctl: put \(input.count) bytes into the \(target.selection) of `\(target.name)`")
            }
        }

        /// Standard input, refused before anything is sent when it is over the limit or not UTF-8.
        static func readStandardInput() throws(CommandError) -> [UInt8] {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count: Int
                do {
                    count = try SystemCall.retrying("read") { buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) } }
                } catch {
                    throw CommandError(.failure, "cannot read standard input: \(error)")
                }
                if count == 0 { break }
                bytes += buffer[0..<count]
                guard bytes.count <= WireLimits.maxClipboardBytes else {
                    throw CommandError(.failure, "standard input is longer than the clipboard's \(WireLimits.maxClipboardBytes) bytes")
                }
            }
            guard String(validating: bytes, as: UTF8.self) != nil else {
                throw CommandError(.failure, "standard input is not UTF-8 text; the clipboard takes UTF-8 text only")
            }
            return bytes
        }
    }
}

/// One clipboard exchange: a session, the host's hello checked for the clipboard, `act`, then the
/// host's messages until `decide` settles it, or the session ends, or the timeout passes (which
/// closes the session).
private struct ClipboardExchange {
    let target: ClipboardCommand.Target

    /// - Parameter needsAnswer: the exchange fails unless `decide` settles it (a read); otherwise
    ///   `act` finishing is success (a write, whose refusal `decide` reports).
    func run(needsAnswer: Bool, _ act: @escaping @Sendable (ControllerSession) async throws -> Void,
             until decide: @escaping @Sendable (ZRCMessage) -> Result<ClipboardContent, CommandError>?) async throws -> ClipboardContent? {
        let context = try ControllerContext.load(target.options)
        guard context.config.clipboard else {
            throw CommandError(.failure, "the clipboard is turned off in \(context.paths.controllerConfigFile.path) (\"clipboard\": false)")
        }
        let controller = try context.controller()
        let session: ControllerSession
        do {
            session = try await controller.connect(to: target.name)
        } catch {
            throw CommandError(error)
        }
        let limit = DurationText.duration(target.timeout) ?? .seconds(10)
        let name = target.name
        let timer = Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            await session.close(text: "`\(name)` did not answer within \(limit)")
        }
        defer { timer.cancel() }
        var actDone = false
        var outcome: Result<ClipboardContent, CommandError>?
        events: for await event in session.events {
            switch event {
            case .message(.hello(_, let capabilities, _)) where !actDone:
                guard capabilities.contains(.clipboard) else {
                    outcome = .failure(CommandError(.failure, "`\(name)` does not share its clipboard (zrc-host serve --no-clipboard, or \"clipboard\": false in its host.json)"))
                    break events
                }
                do {
                    try await act(session)
                    actDone = true
                } catch {
                    outcome = .failure(error as? CommandError ?? (error as? ControllerError).map(CommandError.init) ?? CommandError(.failure, "\(error)"))
                    break events
                }
            case .message(let message):
                if let decided = decide(message) {
                    outcome = decided
                    break events
                }
            case .ended(let end):
                if needsAnswer || !actDone { outcome = .failure(CommandError(.failure, "no answer from `\(name)`: \(end)")) }
            }
        }
        await session.close(text: "clipboard exchange done")
        _ = await session.waitUntilEnded()
        switch outcome {
        case .success(let content): return content
        case .failure(let error): throw error
        case nil: return nil
        }
    }
}
