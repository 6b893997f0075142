import ArgumentParser
import ZRCCommandSupport

struct IdentityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity",
        abstract: "Show this controller's identity key fingerprint (creating the key on first use).")

    @OptionGroup var options: ControllerOptions

    func run() async throws {
        try await CommandRunner.run(program: "zrc-ctl") {
            let context = try ControllerContext.load(options)
            let controller = try context.controller()
            Console.line("Controller key fingerprint: \(controller.fingerprint(of: controller.identityKey))")
            Console.line("Name announced when pairing: \(context.controllerName)")
        }
    }
}
