import ArgumentParser
import ZRCCommandSupport
import ZRCControllerKit
import ZRCProtocol

struct InputCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "input",
        abstract: "Send mouse and keyboard input to a host (scriptable).",
        discussion: "Coordinates are pixels of the shared screen. Exits 0 once the host has received the input.",
        subcommands: [Move.self, Click.self, Scroll.self, Key.self, TypeText.self])

    struct Target: ParsableArguments {
        @OptionGroup var options: ControllerOptions

        @Argument(help: "The host's name, as `zrc-ctl devices` lists it.")
        var name: String
    }

    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move the pointer to X Y.")
        @OptionGroup var target: Target
        @Argument var x: Int32
        @Argument var y: Int32
        func run() async throws { try await send(target, [.pointerMove(x: x, y: y)]) }
    }

    struct Click: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Click at X Y (button 1 left, 2 middle, 3 right).")
        @OptionGroup var target: Target
        @Argument var x: Int32
        @Argument var y: Int32
        @Option(help: "Mouse button 1…3.") var button: UInt8 = 1
        func validate() throws { guard (1...3).contains(button) else { throw ValidationError("--button must be 1, 2 or 3") } }
        func run() async throws {
            try await send(target, [.pointerMove(x: x, y: y), .button(button, pressed: true, x: x, y: y),
                                    .button(button, pressed: false, x: x, y: y)])
        }
    }

    struct Scroll: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Scroll at X Y by DY steps (positive: down) and --dx steps (positive: right).")
        @OptionGroup var target: Target
        @Argument var x: Int32
        @Argument var y: Int32
        @Argument var dy: Int16
        @Option var dx: Int16 = 0
        func run() async throws { try await send(target, [.scroll(dx: dx, dy: dy, x: x, y: y)]) }
    }

    struct Key: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Press and release a key combination, e.g. ctrl+alt+t, Return, shift+F5.")
        @OptionGroup var target: Target
        @Argument var combo: String
        func validate() throws {
            do { _ = try KeyCombo(parsing: combo) } catch { throw ValidationError(error.message) }
        }
        func run() async throws {
            let key = try KeyCombo(parsing: combo)
            try await send(target, [.key(keysym: key.keysym, pressed: true, modifiers: key.modifiers),
                                    .key(keysym: key.keysym, pressed: false, modifiers: key.modifiers)])
        }
    }

    struct TypeText: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "type", abstract: "Type TEXT as Unicode characters.")
        @OptionGroup var target: Target
        @Argument var text: String
        func run() async throws { try await send(target, InputEvent.textEvents(for: text)) }
    }
}

/// Opens a session, sends the events, and waits for a ping's answer, which the host sends only
/// after handling everything before it; an `error` notice (e.g. view-only) fails the command.
private func send(_ target: InputCommand.Target, _ events: [InputEvent]) async throws {
    try await CommandRunner.run(program: "zrc-ctl") {
        let context = try ControllerContext.load(target.options)
        let controller = try context.controller()
        do {
            let session = try await controller.connect(to: target.name)
            if session.granted.contains(.viewOnly) {
                await session.close()
                throw CommandError(.refused, "the host granted only a view-only session (another controller is in control)")
            }
            for event in events { try await session.send(.input(event)) }
            _ = try await session.ping()
            await session.close(text: "input sent")
            for await event in session.events {
                if case .message(.error(_, let text)) = event {
                    throw CommandError(.failure, "the host did not take the input: \(TerminalSafeText.sanitized(text))")
                }
            }
        } catch let error as ControllerError {
            throw CommandError(error)
        }
    }
}
