import ArgumentParser
public import Foundation

/// Runs a subcommand body, turning a `CommandError` into one line on stderr and its exit code.
public enum CommandRunner {
    public static func run(program: String, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as CommandError {
            throw ExitCode(Console.report(error, program: program))
        }
    }

    /// Calls `handler` once on the first SIGINT, SIGTERM or SIGHUP (instead of dying mid-write).
    public static func onTerminationSignal(_ handler: @escaping @Sendable (Int32) -> Void) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }
}
