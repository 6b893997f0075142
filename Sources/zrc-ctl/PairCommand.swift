import ArgumentParser
import ZRCCommandSupport
import ZRCControllerKit
import ZRCStorage

struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair with a host using a one-time invite from `zrc-host pair`.",
        discussion: "Pins the host's key from the invite and stores the host under NAME for later sessions.")

    @OptionGroup var options: ControllerOptions

    @Argument(help: "The invite text (zrc1-…), or - to read it from standard input (keeps it out of the process list).")
    var invite: String

    @Option(help: "Local name for the host (default: the name the host announces).")
    var name: String?

    @Option(help: "Name this controller gives itself on the host (default: controller.json, else user@machine).")
    var controllerName: String?

    @Flag(help: "Replace a different host already paired under the same name.")
    var replace = false

    func validate() throws {
        if let name, let problem = DeviceName.problem(with: name) { throw ValidationError("--name: \(problem)") }
        if let controllerName, let problem = DeviceName.problem(with: controllerName) {
            throw ValidationError("--controller-name: \(problem)")
        }
    }

    func run() async throws {
        try await CommandRunner.run(program: "zrc-ctl") {
            var context = try ControllerContext.load(options)
            if let controllerName { context.config.controllerName = controllerName }
            let controller = try context.controller()
            do {
                let host = try await controller.pair(inviteText: try inviteText(), name: name, replacing: replace)
                Console.line("Paired with \(host.hostName) as `\(host.name)`.")
                Console.line("Host key fingerprint: \(controller.fingerprint(of: host.publicKey)) — it should match what `zrc-host pair` showed.")
                Console.line("Try it: zrc-ctl ping \(host.name)")
            } catch let error as ControllerError {
                throw CommandError(error)
            }
        }
    }

    /// The invite from the argument, or from stdin for `-`: other local users can read a
    /// process's arguments, and an unused invite is a pairing secret.
    private func inviteText() throws(CommandError) -> String {
        guard invite == "-" else { return invite }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw CommandError(.invalidInvite, "no invite on standard input")
        }
        return line
    }
}
