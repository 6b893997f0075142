import Foundation
import Testing
@testable import ZRCControllerKit
import ZRCFiles
import ZRCProtocol

/// What a hostile host's file messages cost the controller: a listing that never ends stops at the
/// limit, a file announced at 2^63 bytes is refused before anything is created, and data that
/// breaks the rules ends the request without touching a target. The client is driven directly,
/// as the session would, with the host's messages made by hand.
@Suite struct HostileFileHostTests {
    /// A client whose requests are recorded (the host's answers come from the test).
    static func client() async -> (FileTransferClient, AsyncStream<ZRCMessage>) {
        let (sent, sink) = AsyncStream<ZRCMessage>.makeStream()
        let client = FileTransferClient { messages in
            messages.forEach { sink.yield($0) }
            return true
        }
        await client.hostHello([.fileTransfer])
        await client.received(.fileTerms(FileTerms(directions: .both, uploadDirectory: "Downloads", rootName: "/home/evil")))
        return (client, sent)
    }

    static func entries(_ count: Int, from first: Int) -> [FileEntry] {
        (first..<first + count).map { FileEntry(name: Array("f\($0)".utf8), kind: .file, size: 1, mode: 0o644, modifiedMicros: 0) }
    }

    @Test func aListingOfAMillionEntriesStopsAtTheLimit() async throws {
        let (client, sent) = await Self.client()
        let listing = Task { try await client.list(.root) }
        var requests = sent.makeAsyncIterator()
        guard case .fileList(let id, _, _)? = await requests.next() else { Issue.record("no listing asked for"); return }
        let perMessage = FileTransferLimits.maxEntriesPerMessage
        for index in 0..<(1_000_000 / perMessage) {
            await client.received(.fileEntries(requestID: id, final: false, entries: Self.entries(perMessage, from: index * perMessage)))
        }
        do {
            _ = try await listing.value
            Issue.record("a listing of a million entries was accepted")
        } catch let error as FileTransferError {
            #expect(error.kind == .limit, "\(error)")
        }
        // The request is gone: the rest of the flood is dropped, not collected.
        #expect(await client.openRequestCount == 0)
        guard case .fileFailed(id, .cancelled, _)? = await requests.next() else { Issue.record("the host was not told to stop"); return }
    }

    @Test func aFileAnnouncedAt2To63BytesIsRefusedBeforeAnythingIsCreated() async throws {
        let (client, _) = await Self.client()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try await client.download(try RemotePath(parsing: "big"), into: try ConfinedDirectory.open(directory.path),
                                      as: try FileName(validating: "big"), size: 1 << 63, replace: false, resume: false) { _ in }
            Issue.record("a 2^63-byte download started")
        } catch let error as FileTransferError {
            #expect(error.kind == .host(.tooLarge), "\(error)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "nothing was created")
    }

    @Test func aReadyAnswerDisagreeingWithTheListingLeavesNoTarget() async throws {
        let (client, sent) = await Self.client()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let download = Task {
            try await client.download(try RemotePath(parsing: "small"), into: try ConfinedDirectory.open(directory.path),
                                      as: try FileName(validating: "small"), size: 10, replace: false, resume: false) { _ in }
        }
        var requests = sent.makeAsyncIterator()
        guard case .fileOpen(let open)? = await requests.next() else { Issue.record("no open sent"); return }
        await client.received(.fileReady(FileReady(requestID: open.requestID, size: 1 << 63, mode: 0o644, modifiedMicros: 0)))
        await #expect(throws: FileTransferError.self) { try await download.value }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "no target and no part left")
    }

    /// The host fails an upload while it sends (here: too far ahead of its disk): the caller hears
    /// the host's reason, not "the request ended", and sends nothing more for it.
    @Test func aFailureWhileSendingReachesTheUploaderWithTheHostsReason() async throws {
        let (client, sent) = await Self.client()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("big.bin")
        try Data(count: 4 << 20).write(to: source)
        let upload = Task {
            try await client.upload(localPath: source.path, to: try RemotePath(parsing: "big.bin"), replace: false, resume: false) { _ in }
        }
        var requests = sent.makeAsyncIterator()
        guard case .fileOpen(let open)? = await requests.next() else { Issue.record("no open sent"); return }
        await client.received(.fileReady(FileReady(requestID: open.requestID, size: 4 << 20, mode: 0o644, modifiedMicros: 0)))
        guard case .fileData? = await requests.next() else { Issue.record("no data sent"); return }
        await client.received(.fileFailed(requestID: open.requestID, code: .protocolError, text: "more than 8388608 bytes sent ahead"))
        do {
            try await upload.value
            Issue.record("the upload succeeded")
        } catch let error as FileTransferError {
            #expect(error.kind == .host(.protocolError))
            #expect(error.text.contains("8388608 bytes sent ahead"), "\(error.text)")
        }
        #expect(await client.openRequestCount == 0)
    }
}
