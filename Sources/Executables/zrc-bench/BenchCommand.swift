import ArgumentParser

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
                      ScreenshotSizeCommand.self, WebCommand.self, WebViewerChildCommand.self],
        defaultSubcommand: PipelineCommand.self)
}
