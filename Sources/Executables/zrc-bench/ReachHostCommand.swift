import ArgumentParser
import Foundation
import Logging
import ZRCCommandSupport
import ZRCHostKit
import ZRCHostX11
import ZRCStorage
import ZRCProtocol
import ZRCReach

/// The host `reach` measures, run in the NAT laboratory's host namespace: the real host server
/// with the X11 source, listening on TCP and at the laboratory's rendezvous broker, with its STUN
/// server and relay. Prints `port N`, then one invite (naming `--advertise`) per `invite` line.
struct ReachHostCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reach-host", abstract: "Run the host `reach` measures.", shouldDisplay: false)

    @Option(help: "X display to share.") var display: String
    @Option(help: "Directory for the host's files.") var directory: String
    @Option(help: "The rendezvous broker, mqtt://…") var broker: String
    @Option(help: "The STUN server, stun:…") var stun: String
    @Option(help: "The relay, turn://user:password@…") var relay: String
    @Option(help: "The address invites name (the LAN link).") var advertise: String
    @Option(help: "PseudoTCP window on a direct path, bytes (default: the product's).") var directWindow: Int?

    func run() async throws {
        var logger = Logger(label: "zrc-bench.reach-host")
        logger.logLevel = .error
        var config = HostConfig()
        config.rendezvousUrls = [broker]
        config.stunUrls = [stun]
        config.relayUrls = [relay]
        guard var reach = ReachWiring.hostReach(config) else { throw ValidationError("no rendezvous configured") }
        if let directWindow { reach.ice.window = directWindow }
        let source = try X11ScreenSource(displayName: display, monitor: nil, logger: logger)
        let sharing = ScreenSharing(source: source, input: source, makeEncoder: { try FrameCodec() })
        let host = try BenchHost(directory: URL(fileURLWithPath: directory), sharing: sharing, listen: "0.0.0.0", reach: reach, logger: logger)
        let address = try await host.start()
        say("port \(address.port)")
        for await request in StandardInputLines.stream() where request == "invite" {
            say(try await host.invite(addresses: [advertise]))
        }
        await host.stop()
    }

    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
