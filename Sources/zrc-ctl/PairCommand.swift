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

    @Argument(help: "The invite text (zrc1-…).")
    var invite: String

    @Option(help: "Local name for the host (default: the name the host announces).")
    var name: String?

    @Option(help: "Name this controller gives itself on the host (default: controller.json, else user@machine).")
    var controllerName: String?

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
                let host = try await controller.pair(inviteText: invite, name: name)
                print("Paired with \(host.hostName) as `\(host.name)`.")
                print("Host key fingerprint: \(controller.fingerprint(of: host.publicKey)) — it should match what `zrc-host pair` showed.")
                print("Try it: zrc-ctl ping \(host.name)")
            } catch let error as ControllerError {
                throw CommandError(error)
            }
        }
    }
}
