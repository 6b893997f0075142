import Foundation
import Synchronization
import Testing
@testable import ZRCControllerKit
import ZRCFiles
import ZRCNetworking
import ZRCProtocol
import ZRCTestSupport

/// When the controller acknowledges a download: at the end of a read that brought 32 KiB since
/// its last acknowledgement, or — however little came — once 2 ms have passed since it. A slow
/// path's host sends 8 KiB chunks milliseconds apart; waiting for 32 KiB of them kept half its
/// window unacknowledged here, and the path idle.
@Suite struct DownloadAcknowledgementTests {
    /// The rule at the end of a read: (through, last acknowledged offset, µs since it, rate
    /// limited) → acknowledged. 1 MiB file.
    @Test(arguments: [
        (8_192, 0, 1_999, false, false),       // little, and soon after the last: held
        (8_192, 0, 2_000, false, true),        // little, but 2 ms after: acknowledged
        (8_192, 0, 50_000, true, false),       // under a rate limit the time rule is off
        (40_960, 8_192, 10, false, true),      // 32 KiB since the last: at once
        (40_960, 8_192, 10, true, true),       // … rate limit or not
        (1_048_576, 1_040_384, 10, true, true), // the file's end: at once
        (8_192, 8_192, 50_000, false, false),  // nothing new: never
    ] as [(UInt64, UInt64, UInt64, Bool, Bool)])
    func theRuleAtTheEndOfARead(through: UInt64, last: UInt64, after: UInt64, limited: Bool, acknowledged: Bool) {
        let lastMicros: UInt64 = 1_000_000
        #expect(FileTransferClient.acknowledges(through: through, size: 1 << 20, last: (last, lastMicros), now: lastMicros + after,
                                                limited: limited) == acknowledged)
    }

    @Test func smallChunksMillisecondsApartAreEachAcknowledged() async throws {
        // What the client sends, recorded as it sends it: after `caughtUp` returns, its
        // acknowledgement (if any) is here, so nothing below waits for one that never comes.
        let sent = Mutex<[ZRCMessage]>([])
        let client = FileTransferClient { messages in
            sent.withLock { $0 += messages }
            return true
        }
        await client.hostHello([.fileTransfer])
        await client.received(.fileTerms(FileTerms(directions: .both, uploadDirectory: "Downloads", rootName: "/home/someone")))
        func acknowledgements() -> [UInt64] {
            sent.withLock { $0.compactMap { if case .fileAck(_, let through) = $0 { through } else { nil } } }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-acks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let size: UInt64 = 64 * 1024
        let download = Task {
            try await client.download(try RemotePath(parsing: "file"), into: try ConfinedDirectory.open(directory.path),
                                      as: try FileName(validating: "file"), size: size, replace: false, resume: false) { _ in }
        }
        let opened = try await pollUntil("the download's open", within: .seconds(30)) {
            sent.withLock { $0.contains { if case .fileOpen = $0 { true } else { false } } }
        }
        guard opened, case .fileOpen(let open)? = sent.withLock({ $0.first }) else {
            Issue.record("no open sent")
            await client.sessionEnded("the test is over")
            _ = try? await download.value
            return
        }
        let id = open.requestID
        await client.received(.fileReady(FileReady(requestID: id, size: size, mode: 0o644, modifiedMicros: 0)))
        let chunk = [UInt8](repeating: 0x42, count: 8 * 1024)
        for index in 0..<3 as Range<UInt64> {
            let before = WireClock.monotonicMicros()
            // The rule is about time: the condition waited for is the clock passing 2 ms.
            while WireClock.monotonicMicros() < before + FileTransferClient.acknowledgeAfterMicros {
                try await Task.sleep(for: .milliseconds(1))
            }
            await client.received(.fileData(requestID: id, offset: index * 8192, data: chunk))
            await client.caughtUp()
            #expect(acknowledgements().last == (index + 1) * 8192, "8 KiB 2 ms after the last acknowledgement: \(acknowledgements())")
        }
        // 32 KiB in one read are acknowledged whenever they come (within the 2 ms or not).
        for index in 3..<7 as Range<UInt64> {
            await client.received(.fileData(requestID: id, offset: index * 8192, data: chunk))
        }
        await client.caughtUp()
        #expect(acknowledgements().last == 7 * 8192, "\(acknowledgements())")
        // The rest, and an end whose digest is not the file's: the download fails and is over.
        await client.received(.fileData(requestID: id, offset: 7 * 8192, data: chunk))
        await client.received(.fileEnd(requestID: id, digest: [UInt8](repeating: 0, count: 32)))
        await #expect(throws: FileTransferError.self) { try await download.value }
    }
}
