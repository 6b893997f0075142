import ArgumentParser
import Foundation
import ZRCControllerKit
import ZRCFiles
import ZRCProtocol
import Synchronization

/// The controller `zrc-bench files` measures, in a process of its own (so it can be killed in the
/// middle of an upload, as a user's `zrc-ctl cp` can). Pairs with the invite read first on stdin,
/// says `connected`, then runs one command per line:
///
/// - `upload LOCAL REMOTE [resume]` → `progress BYTES` lines (every 16 MiB acknowledged), then
///   `uploaded SECONDS WIRE_BYTES_SENT`
/// - `download REMOTE LOCAL_DIRECTORY NAME SIZE` → `downloaded SECONDS WIRE_BYTES_RECEIVED`
/// - `cpu` → `cpu SECONDS` (this process's CPU time so far)
/// - a failure → `failed TEXT`
struct FilesControllerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "files-controller", abstract: "The controller `files` measures.",
                                                    shouldDisplay: false)

    @Option(help: "Directory for this controller's known-hosts file.")
    var directory: String

    func run() async throws {
        var input = StandardInputLines.stream().makeAsyncIterator()
        guard let invite = await input.next() else { throw ValidationError("files-controller reads an invite on stdin") }
        let session = try await ControllerSession.bench(invite: invite, directory: directory, label: "zrc-bench.files-controller")
        // A session the host made view-only (the controller before it still holds control, its
        // end not yet noticed) says so, and the parent tries again.
        guard try await session.files.waitForTerms().directions.contains(.upload) else {
            say("view-only")
            await session.close()
            return
        }
        say("connected")
        let clock = ContinuousClock()
        while let line = await input.next() {
            let words = line.split(separator: " ").map(String.init)
            do {
                switch words.first {
                case "upload" where words.count >= 3:
                    let reported = ProgressSteps(step: 16 << 20)
                    let (seconds, wire) = try await Self.timedUpload(words[1], to: words[2], resume: words.count > 3 && words[3] == "resume",
                                                                     in: session) { done in
                        if reported.crossed(done) { say("progress \(done)") }
                    }
                    say("uploaded \(seconds) \(wire)")
                case "download" where words.count == 5:
                    guard let size = UInt64(words[4]) else { throw ValidationError("bad size \(words[4])") }
                    let receivedBefore = await session.receivedBytes()
                    let started = clock.now
                    try await session.files.download(try RemotePath(parsing: words[1]), into: try ConfinedDirectory.open(words[2]),
                                                     as: try FileName(validating: words[3]), size: size, replace: true, resume: false) { _ in }
                    let seconds = Self.seconds(clock.now - started)
                    say("downloaded \(seconds) \(await session.receivedBytes() - receivedBefore)")
                case "cpu":
                    say("cpu \(ProcessCPU.seconds())")
                default:
                    say("failed unknown command \(line)")
                }
            } catch {
                say("failed \(error)")
            }
        }
        await session.close()
    }

    /// Uploads `local` to `remote` (replacing it): how long it took and the bytes the session sent meanwhile.
    static func timedUpload(_ local: String, to remote: String, resume: Bool = false, in session: ControllerSession,
                            progress: @escaping @Sendable (UInt64) -> Void = { _ in }) async throws -> (seconds: Double, wireBytes: Int) {
        let sentBefore = await session.sentBytes()
        let clock = ContinuousClock()
        let started = clock.now
        try await session.files.upload(localPath: local, to: try RemotePath(parsing: remote), replace: true, resume: resume, progress: progress)
        return (seconds(clock.now - started), await session.sentBytes() - sentBefore)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Says each time acknowledged bytes cross another `step` (progress callbacks come per chunk).
final class ProgressSteps: Sendable {
    private let step: UInt64
    private let next = Mutex<UInt64>(0)

    init(step: UInt64) { self.step = step }

    func crossed(_ done: UInt64) -> Bool {
        next.withLock { next in
            guard done >= next else { return false }
            next = (done / step + 1) * step
            return true
        }
    }
}

/// A line on stdout, unbuffered: the parent waits for it.
private func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
