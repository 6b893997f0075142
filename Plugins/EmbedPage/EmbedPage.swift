import Foundation
import PackagePlugin

/// Compiles the browser viewer's page (`page/` beside the target's Swift files: HTML, CSS,
/// JavaScript modules) into the binary as Swift string literals, so `zrc-ctl` serves it with no
/// file installed beside it and nothing fetched at run time.
@main
struct EmbedPage: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        let pageDirectory = target.directoryURL.appending(path: "page")
        let names = try FileManager.default.contentsOfDirectory(atPath: pageDirectory.path())
            .filter { !$0.hasPrefix(".") }
            .sorted()
        let inputs = names.map { pageDirectory.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "PageFiles+Embedded.swift")
        return [
            .buildCommand(
                displayName: "Embedding the browser viewer's page (\(names.count) files)",
                executable: try context.tool(named: "zrc-embed").url,
                arguments: [output.path()] + inputs.map { $0.path() },
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}
