import ArgumentParser
import ZRCCommandSupport
import ZRCControllerKit
import ZRCProtocol

struct IdentityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity",
        abstract: "Show this controller's identity key fingerprint (creating the key on first use).")

    @OptionGroup var options: ControllerOptions

    @Flag(help: "Print the identity as JSON (for scripts; the shape is in the README).")
    var json = false

    func run() async throws {
        try await CommandRunner.run(program: "zrc-ctl") {
            let context = try ControllerContext.load(options)
            let controller = try context.controller()
            if json {
                return try JSONOutput.line(["fingerprint": controller.fingerprint(of: controller.identityKey),
                                            "publicKey": controller.identityKey.hex, "controllerName": context.controllerName])
            }
            Console.line("Controller key fingerprint: \(controller.fingerprint(of: controller.identityKey))")
            Console.line("Name announced when pairing: \(context.controllerName)")
        }
    }
}
