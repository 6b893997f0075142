import ArgumentParser
import ZRCMemory

@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zrc-bench",
        abstract: "Measure the host's frame pipeline on a real X server.",
        discussion: """
            `zrc-bench pipeline` (the default) runs the real host — X11 capture, XDamage, tile \
            compare, JPEG, Noise, TCP — against a controller in another process while a test client \
            draws a static screen, typing-sized changes and full-screen motion. `zrc-bench floors` \
            measures the single stages in isolation, for comparison with the physical floor. \
            `zrc-bench latency` measures click-to-decoded-frame latency and the terminal renderers \
            (`--viewers 2`: also with a second viewer watching). `zrc-bench flood` measures a \
            controller's pings and the host's memory while the host is flooded. \
            Build in release mode for real figures.
            """,
        subcommands: [PipelineCommand.self, LinksCommand.self, CompareCommand.self, LabCheckCommand.self, LinkControllerCommand.self, LatencyCommand.self, FloodCommand.self, FloorsCommand.self, PaintCommand.self, SinkCommand.self,
                      ProbeCommand.self, FloodHostCommand.self, ReachCommand.self, ReachHostCommand.self, ReachControllerCommand.self,
                      ScreenshotSizeCommand.self, WebCommand.self, WebViewerChildCommand.self, PresenceCommand.self, FilesCommand.self,
                      FilesControllerCommand.self, FilesLabCommand.self],
        defaultSubcommand: PipelineCommand.self)

    /// The hosts the benchmarks measure in processes of their own set glibc's allocator as
    /// `zrc-host` does: first thing, while this is the only thread (see `AllocatorTuning`).
    /// The file benchmarks' controller sets it as `zrc-ctl cp` does; the benchmarks' other
    /// processes keep glibc's defaults.
    static func main() async {
        let hosts = [FloodHostCommand.configuration.commandName, ReachHostCommand.configuration.commandName]
        let controllers = [FilesControllerCommand.configuration.commandName]
        let subcommand = CommandLine.arguments.dropFirst().first ?? ""
        if hosts.contains(subcommand) { AllocatorTuning.forLongRunningServer() }
        if controllers.contains(subcommand) { AllocatorTuning.forFileTransfer() }
        await main(nil)
    }
}
