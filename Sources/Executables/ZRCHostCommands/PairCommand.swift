import ArgumentParser
import Foundation
import ZRCCommandSupport
import ZRCHostKit
import ZRCStorage
import Logging

struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Create a one-time invite for a new controller.",
        discussion: """
            Asks the running `zrc-host serve` for an invite: the host's addresses, its public key and a \
            128-bit secret, valid once and for a limited time. Give the invite to the controller's user \
            over a channel you trust; whoever has it can pair once.
            """)

    @OptionGroup var options: HostOptions

    @Option(help: "How long the invite stays valid: e.g. 90s, 10m, 2h (30 s to 24 h; default: host.json, else 10m).")
    var lifetime: String?

    @Option(name: .customLong("address"), help: "An address to put into the invite instead of the server's own (repeatable).")
    var addresses: [String] = []

    @Flag(help: "Print the result as JSON (for scripts).")
    var json = false

    func validate() throws {
        if let lifetime {
            guard let seconds = DurationText.seconds(lifetime) else {
                throw ValidationError("--lifetime `\(lifetime)` is not a duration (e.g. 90s, 10m, 2h)")
            }
            let range = HostConfig.inviteLifetimeRange
            guard range.contains(seconds) else {
                throw ValidationError("--lifetime must be between \(range.lowerBound) s and \(range.upperBound / 3600) h")
            }
        }
    }

    func run() async throws {
        try await CommandRunner.run(program: "zrc-host") {
            let context = try HostContext.load(options, defaultLogLevel: .warning)
            let seconds = lifetime.flatMap(DurationText.seconds) ?? context.config.inviteLifetimeSeconds
            guard case .invite(let summary) = try await context.request(.createInvite(lifetimeSeconds: seconds, addresses: addresses)) else {
                throw CommandError(.failure, "the server answered something other than an invite")
            }
            if json {
                return try JSONOutput.line(summary)
            }
            let expiry = summary.expiresAt.formatted(date: .omitted, time: .standard)
            Console.line("""
                One-time invite for \(summary.hostName) — valid once, until \(expiry) (\(DurationText.describe(seconds: seconds))):

                    \(summary.invite)

                Host key fingerprint: \(summary.hostFingerprint)
                Addresses: \(summary.addresses.joined(separator: ", "))

                On the controller, run
                    zrc-ctl pair --name NAME
                and paste the invite at its prompt (never as an argument: other users could read it
                in the process list), then check that it shows the same fingerprint.
                """)
        }
    }
}
