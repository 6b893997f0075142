import ArgumentParser
import Foundation
import ZRCCommandSupport
import ZRCHostKit
import ZRCStorage
import Logging

struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair a new controller: a short code to read out, or a one-time invite.",
        discussion: """
            With --code, asks the running `zrc-host serve` for a code such as 42-8317-0946-6 to read \
            out or type on the controller (`zrc-ctl pair --code`), and waits until a controller has \
            proven it, then prints its name and fingerprint. The code is found on the LAN and at the \
            rendezvous brokers; its secret digits never travel (CPace), and three wrong tries end it. \
            It ends when it pairs, expires, or this command stops.

            Without --code, asks for an invite: the host's addresses, its public key and a 128-bit \
            secret, valid once and for a limited time. Give the invite to the controller's user over a \
            channel you trust; whoever has it can pair once.
            """)

    @OptionGroup var options: HostOptions

    @Option(help: "How long the invite or code stays valid: e.g. 90s, 10m, 2h (an invite 30 s to 24 h, a code 1 min to 1 h; default: host.json, else 10m).")
    var lifetime: String?

    @Option(name: .customLong("address"), help: "An address to put into the invite instead of the server's own (repeatable).")
    var addresses: [String] = []

    @Flag(help: "Print the result as JSON (for scripts); with --code, one JSON object per line, the code first.")
    var json = false

    @Flag(help: "Make a short code to read out instead of an invite.")
    var code = false

    @Flag(help: "With --code: authorize the controller for one session only (for helping someone, not for unattended access).")
    var temporary = false

    func validate() throws {
        if temporary && !code { throw ValidationError("--temporary goes with --code") }
        if code && !addresses.isEmpty { throw ValidationError("--address goes with invites, not --code: a code's host tells its own addresses") }
        if let lifetime, code {
            guard let seconds = DurationText.seconds(lifetime) else {
                throw ValidationError("--lifetime `\(lifetime)` is not a duration (e.g. 90s, 10m, 1h)")
            }
            let range = HostConfig.codeLifetimeRange
            guard range.contains(seconds) else {
                throw ValidationError("--lifetime of a code must be between \(range.lowerBound / 60) min and \(range.upperBound / 3600) h")
            }
        } else if let lifetime {
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
            if code {
                let seconds = lifetime.flatMap(DurationText.seconds) ?? min(context.config.inviteLifetimeSeconds, HostConfig.codeLifetimeRange.upperBound)
                return try await CodePairingCommand(context: context, lifetimeSeconds: seconds, temporary: temporary, json: json).run()
            }
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
