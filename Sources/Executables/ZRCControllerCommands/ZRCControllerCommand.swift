public import ArgumentParser
import ZRCCommandSupport

/// The program's root command; the executable's `main.swift` runs it (`await ZRCControllerCommand.main()`).
public struct ZRCControllerCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "zrc-ctl",
        abstract: "Control ZRC hosts from this terminal.",
        discussion: """
            Pair once with `zrc-ctl pair --name NAME` and paste the invite from `zrc-host pair` at its prompt, \
            then check the connection with `zrc-ctl ping NAME`.
            """,
        version: ZRCVersion.current,
        subcommands: [PairCommand.self, DevicesCommand.self, AppCommand.self, ForgetCommand.self, PingCommand.self, ViewCommand.self, ScreenshotCommand.self, InputCommand.self, ClipboardCommand.self, CopyCommand.self, ListCommand.self,
                      IdentityCommand.self])

    public init() {}
}
