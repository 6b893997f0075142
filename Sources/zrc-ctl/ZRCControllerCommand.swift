import ArgumentParser
import ZRCCommandSupport

@main
struct ZRCControllerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zrc-ctl",
        abstract: "Control ZRC hosts from this terminal.",
        discussion: """
            Pair once with `zrc-ctl pair <invite>` (the invite comes from `zrc-host pair` on the host), \
            then check the connection with `zrc-ctl ping NAME`.
            """,
        version: ZRCVersion.current,
        subcommands: [PairCommand.self, DevicesCommand.self, ForgetCommand.self, PingCommand.self, ViewCommand.self, ScreenshotCommand.self, InputCommand.self, ClipboardCommand.self,
                      IdentityCommand.self])
}
