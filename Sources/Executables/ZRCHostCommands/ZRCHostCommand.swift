public import ArgumentParser
import ZRCCommandSupport
import ZRCMemory

/// The program's root command; the executable's `main.swift` runs it (`await ZRCHostCommand.main()`).
public struct ZRCHostCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "zrc-host",
        abstract: "Share this machine's screen with paired ZRC controllers.",
        discussion: """
            Start the server with `zrc-host serve`, then create a one-time invite with `zrc-host pair` \
            and paste it into `zrc-ctl pair` on the controller.
            """,
        version: ZRCVersion.current,
        subcommands: [ServeCommand.self, PairCommand.self, ControllersCommand.self, SessionsCommand.self, IdentityCommand.self])

    public init() {}

    /// glibc's allocator is set for a long-running server before anything else runs, while this
    /// is the only thread (see `AllocatorTuning`); harmless for the short commands.
    public static func main() async {
        AllocatorTuning.forLongRunningServer()
        await main(nil)
    }
}
