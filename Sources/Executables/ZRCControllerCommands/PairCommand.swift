import ArgumentParser
import Foundation
import Glibc
import ZRCCommandSupport
import ZRCControllerKit
import ZRCProtocol
import ZRCSodium
import ZRCStorage

struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair with a host using a code or a one-time invite from `zrc-host pair`.",
        discussion: """
            With --code, asks for the code `zrc-host pair --code` shows (for example 42-8317-0946-6), or \
            reads it from standard input when that is not a terminal; finds the host on the LAN and at \
            the rendezvous servers of controller.json, proves the code without sending it (CPace), and \
            pairs. Check that the fingerprints both sides print match.

            Without --code, reads the invite from standard input, or asks for it when standard input is a terminal: \
            never give it as an argument, where other users of this machine can read it (/proc/PID/cmdline) \
            and pair first. Pins the host's key from the invite and stores the host under NAME for later sessions.

            Examples: `zrc-ctl pair --code --name desk` (then type the code), `zrc-ctl pair --name desk` (then \
            paste the invite), `zrc-ctl pair --name desk < invite.txt`.
            """)

    @OptionGroup var options: ControllerOptions

    /// Only `-` (standard input, as before) is accepted: an invite in argv is refused in `validate()`.
    @Argument(help: ArgumentHelp("Refused unless `-`: the invite is read from standard input or the prompt.", visibility: .hidden))
    var invite: String?

    @Option(help: "Local name for the host (default: the name the host announces).")
    var name: String?

    @Option(help: "Name this controller gives itself on the host (default: controller.json, else user@machine).")
    var controllerName: String?

    @Flag(help: "Replace a different host already paired under the same name.")
    var replace = false

    @Flag(help: "Pair with the short code `zrc-host pair --code` shows (asked for at a prompt, or read from standard input).")
    var code = false

    func validate() throws {
        if let invite, invite != "-" {
            throw ValidationError(Self.inviteInArgumentsRefusal)
        }
        if let name, let problem = DeviceName.problem(with: name) { throw ValidationError("--name: \(problem)") }
        if let controllerName, let problem = DeviceName.problem(with: controllerName) {
            throw ValidationError("--controller-name: \(problem)")
        }
    }

    /// Why an invite given as an argument is refused, and what to do instead.
    static let inviteInArgumentsRefusal = """
        the invite is not taken as an argument: other users of this machine can read a command's arguments \
        (/proc/PID/cmdline) and pair with it first. This one may have been seen: make a new one with \
        `zrc-host pair`, then run `zrc-ctl pair --name NAME` and paste it at the prompt (or pipe it in: \
        `zrc-ctl pair --name NAME < invite.txt`)
        """

    func run() async throws {
        try await CommandRunner.run(program: "zrc-ctl") {
            var context = try ControllerContext.load(options)
            if let controllerName { context.config.controllerName = controllerName }
            let controller = try context.controller()
            do {
                let host: KnownHost
                if code {
                    let typed = try Self.readCode()
                    Console.warn("Looking for the host on the LAN and at the rendezvous servers…")
                    host = try await controller.pair(code: typed, name: name, group: try SodiumCPaceGroup(), replacing: replace) { progress in
                        switch progress {
                        case .found(let place): Console.warn("Found the host (\(place)); proving the code…")
                        case .proving: break
                        case .pairing: Console.warn("The host accepted the code; pairing…")
                        }
                    }
                } else {
                    host = try await controller.pair(inviteText: try Self.readInvite(), name: name, replacing: replace)
                }
                Console.line("Paired with \(host.hostName) as `\(host.name)`.")
                Console.line("Host key fingerprint: \(controller.fingerprint(of: host.publicKey)) — it should match what `zrc-host pair` showed.")
                if code { Console.line("This controller's fingerprint: \(controller.fingerprint(of: controller.identityKey)) — the host shows it too.") }
                Console.line("Try it: zrc-ctl ping \(host.name)")
            } catch let error as ControllerError {
                throw CommandError(error)
            }
        }
    }

    /// The code from standard input: asked for at a prompt when it is a terminal. Never from argv,
    /// where another local user could read it and race the real controller.
    static func readCode() throws(CommandError) -> PairingCode {
        let interactive = isatty(STDIN_FILENO) == 1
        if interactive { Console.prompt("Type the code `zrc-host pair --code` shows and press Enter: ") }
        guard let line = readLine(strippingNewline: true) else {
            throw CommandError(.invalidInvite, interactive ? "no code was entered" : "no code on standard input")
        }
        guard line.utf8.count <= 256 else { throw CommandError(.invalidInvite, "that is not a code: it is longer than 256 bytes") }
        do {
            return try PairingCode(parsing: line)
        } catch {
            throw CommandError(.invalidInvite, "\(error)")
        }
    }

    /// The invite from standard input: asked for at a prompt (on stderr) when it is a terminal.
    /// One line, at most 4 KiB (an invite is a few hundred characters).
    static func readInvite() throws(CommandError) -> String {
        let interactive = isatty(STDIN_FILENO) == 1
        if interactive { Console.prompt("Paste the invite from `zrc-host pair` and press Enter: ") }
        guard let line = readLine(strippingNewline: true) else {
            throw CommandError(.invalidInvite, interactive ? "no invite was entered" : "no invite on standard input")
        }
        let text = line.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw CommandError(.invalidInvite, "the invite is empty") }
        guard text.utf8.count <= 4096 else { throw CommandError(.invalidInvite, "that is not an invite: it is longer than 4 KiB") }
        return text
    }
}
