import ArgumentParser
import Foundation
import ZRCCommandSupport
import ZRCControllerKit
import ZRCFiles
import ZRCMemory
import ZRCProtocol

struct CopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cp",
        abstract: "Copy files to or from a host, like scp.",
        discussion: """
            Upload: zrc-ctl cp [-r] LOCAL... NAME:[REMOTE]. Download: zrc-ctl cp [-r] NAME:REMOTE... LOCAL. Remote \
            paths are relative to the host's transfer root; NAME: alone is the root. An existing file is never \
            replaced without --force; data goes to a part file that is synced, checked (BLAKE2b) and renamed. \
            A failed or interrupted copy keeps the part: --resume sends only the rest. Exit codes: 0 copied, \
            1 failed, 3 host unreachable, 4 refused by the host, 9 some entries skipped, 130 interrupted.
            """)

    @OptionGroup var options: ControllerOptions

    @Argument(help: "Sources, then the destination; one side NAME:PATH.")
    var paths: [String]

    @Flag(name: .shortAndLong, help: "Copy directories and what they hold.")
    var recursive = false

    @Flag(help: "Replace files that exist at the destination.")
    var force = false

    @Flag(help: "Continue from the part an interrupted copy left (checked by its digest first).")
    var resume = false

    @Option(name: [.customShort("l"), .long], help: ArgumentHelp(
        "Transfer no faster than RATE a second: 500K, 2M, 1.5G (KiB, MiB, GiB), 4096B; a bare number is KiB.",
        valueName: "RATE"))
    var limit: TransferRateLimit?

    @Flag(help: "Progress and results as JSON lines on standard output.")
    var json = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        guard paths.count >= 2 else { throw ValidationError("name at least one source and a destination") }
        let remotes = paths.map { RemoteSpec($0) != nil }
        if remotes.last == true {
            guard !remotes.dropLast().contains(true) else { throw ValidationError("copy between a host and this machine, not between hosts") }
        } else {
            guard remotes.dropLast().allSatisfy({ $0 }) else { throw ValidationError("either the destination or every source is NAME:PATH") }
            guard Set(paths.dropLast().compactMap { RemoteSpec($0)?.host }).count == 1 else { throw ValidationError("download from one host at a time") }
        }
    }

    func run() async throws {
        AllocatorTuning.forFileTransfer()
        try await CommandRunner.run(program: "zrc-ctl") {
            let upload = RemoteSpec(paths.last!) != nil
            let host = upload ? RemoteSpec(paths.last!)!.host : RemoteSpec(paths[0])!.host
            let link = try await FileSession.open(options, host: host)
            let report = CopyReport(json: json, quiet: quiet, host: host)
            let files = link.session.files
            await files.limitRate(limit)
            let signals = CommandRunner.onTerminationSignal { _ in Task { await files.cancelAll() } }
            defer { signals.forEach { $0.cancel() } }
            do {
                var copier = Copier(files: files, report: report, recursive: recursive, force: force, resume: resume)
                if upload {
                    try await copier.upload(Array(paths.dropLast()), to: try RemoteSpec(paths.last!)!.path())
                } else {
                    try await copier.download(try paths.dropLast().map { try RemoteSpec($0)!.path() }, to: paths.last!)
                }
                await link.close()
                report.finished()
                if copier.skipped > 0 { throw CommandError(.partial, "\(copier.skipped) entries were skipped (see above); the rest was copied") }
            } catch {
                TransferBoard.remove()
                await link.close()
                throw FileSession.commandError(error)
            }
        }
    }
}
