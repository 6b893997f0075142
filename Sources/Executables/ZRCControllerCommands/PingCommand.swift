import ArgumentParser
import Foundation
import ZRCCommandSupport
import ZRCControllerKit

struct PingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ping",
        abstract: "Open an authenticated session with a paired host and print round-trip times.",
        discussion: "The first thing to run after pairing: it proves the pairing, the keys and the network path.")

    @OptionGroup var options: ControllerOptions

    @Argument(help: "The host's name, as `zrc-ctl devices` lists it.")
    var name: String

    @Option(name: .shortAndLong, help: "Number of pings (1…10000).")
    var count = 4

    @Option(help: "Time between pings, e.g. 1s, 0.2s or 200ms; 0 sends them back to back.")
    var interval: String = "1s"

    func validate() throws {
        guard (1...10_000).contains(count) else { throw ValidationError("--count must be between 1 and 10000") }
        guard DurationText.duration(interval) != nil else {
            throw ValidationError("--interval `\(interval)` is not a duration (e.g. 1s, 0.2s, 200ms)")
        }
    }

    func run() async throws {
        try await CommandRunner.run(program: "zrc-ctl") {
            let context = try ControllerContext.load(options)
            let controller = try context.controller()
            let pause = DurationText.duration(interval) ?? .seconds(1)
            do {
                let session = try await controller.connect(to: name)
                Console.line("Session \(session.sessionID) with \(session.hostName) (`\(name)`) over \(session.path), encrypted and authenticated.")
                var times: [Double] = []
                for index in 1...count {
                    let rtt = try await session.ping()
                    let milliseconds = Double(rtt.components.attoseconds) / 1e15 + Double(rtt.components.seconds) * 1000
                    times.append(milliseconds)
                    Console.line("reply \(index): \(String(format: "%.3f", milliseconds)) ms")
                    if index < count && pause > Duration.zero { try await Task.sleep(for: pause) }
                }
                await session.close(text: "ping finished")
                _ = await session.waitUntilEnded()
                let sorted = times.sorted()
                Console.line(String(format: "%d replies: min %.3f / median %.3f / max %.3f ms",
                             sorted.count, sorted.first ?? 0, sorted[sorted.count / 2], sorted.last ?? 0))
            } catch let error as ControllerError {
                throw CommandError(error)
            }
        }
    }
}
