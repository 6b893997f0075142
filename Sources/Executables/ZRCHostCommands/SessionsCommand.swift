import ArgumentParser
import Foundation
import ZRCCommandSupport
import ZRCHostKit
import Logging

struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List live sessions, or end one.",
        subcommands: [List.self, End.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Live sessions: controller, since, mode, updates/s, bytes/s (averaged over the session), round-trip time, and the path rate and queue the host's pacing measures now.")

        @OptionGroup var options: HostOptions

        @Flag(help: "Print the list as JSON (for scripts; the shape is in the README).")
        var json = false

        /// One session of `sessions --json`: rates averaged over the session, the path as the
        /// pacing measures it now (null until frames have shown it).
        private struct Row: Encodable {
            let id: UInt64
            let controller: String
            let since: Date
            let mode: String
            let updatesPerSecond, bytesPerSecond: Double
            let roundTripMilliseconds, pathBitsPerSecond, queueMilliseconds: OrNull<Double>
        }

        func run() async throws {
            try await CommandRunner.run(program: "zrc-host") {
                let context = try HostContext.load(options, defaultLogLevel: .warning)
                guard case .sessions(let sessions) = try await context.request(.listSessions) else {
                    throw CommandError(.failure, "the server answered something other than a session list")
                }
                if json {
                    let rows = sessions.map {
                        Row(id: $0.id, controller: $0.controllerName, since: $0.since, mode: $0.viewOnly ? "view-only" : "control",
                            updatesPerSecond: $0.updatesPerSecond, bytesPerSecond: $0.bytesPerSecond,
                            roundTripMilliseconds: OrNull($0.roundTripMilliseconds), pathBitsPerSecond: OrNull($0.deliveryRate.map { $0 * 8 }),
                            queueMilliseconds: OrNull($0.queueMilliseconds))
                    }
                    return try JSONOutput.line(["sessions": rows])
                }
                guard !sessions.isEmpty else {
                    Console.line("No live sessions.")
                    return
                }
                var rows = [["ID", "CONTROLLER", "SINCE", "MODE", "UPDATES/S", "BYTES/S", "RTT", "PATH RATE", "QUEUE"]]
                for session in sessions {
                    rows.append([String(session.id), session.controllerName, TableText.date(session.since),
                                 session.viewOnly ? "view-only" : "control", String(format: "%.1f", session.updatesPerSecond),
                                 String(format: "%.0f", session.bytesPerSecond),
                                 session.roundTripMilliseconds.map { String(format: "%.2f ms", $0) } ?? "-",
                                 session.deliveryRate.map { String(format: "%.1f Mbit/s", $0 * 8 / 1_000_000) } ?? "-",
                                 session.queueMilliseconds.map { String(format: "%.0f ms", $0) } ?? "-"])
                }
                Console.line(TableText.render(rows))
            }
        }
    }

    struct End: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End a live session (the controller may reconnect unless revoked).")

        @OptionGroup var options: HostOptions

        @Argument(help: "The session ID, as `zrc-host sessions` lists it.")
        var id: UInt64

        func run() async throws {
            try await CommandRunner.run(program: "zrc-host") {
                let context = try HostContext.load(options, defaultLogLevel: .warning)
                _ = try await context.request(.endSession(id: id))
                Console.line("Ended session \(id).")
            }
        }
    }
}
