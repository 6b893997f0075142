import Foundation
import PropertyBased
import Testing
@testable import ZRCHostKit
import ZRCFiles
import ZRCProtocol
import ZRCSodium

/// The host's download reader reads chunks ahead of the session driver, with O_DIRECT from a
/// disk: from any resume offset and whatever sizes it is asked for, it gives the file's bytes in
/// order, the digests of the prefix and of the whole file, and never holds more than its chunks
/// ahead.
@Suite struct DownloadReaderTests {
    @Test func anyAsksFromAnyOffsetGiveTheFileInOrderWithAFewChunksAheadAtMost() async throws {
        let directory = URL(fileURLWithPath: "/var/tmp").appendingPathComponent("zrc-reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sharing = FileSharing(root: try ConfinedDirectory.open(directory.path), directions: .both, uploadDirectory: .root,
                                  maxFileBytes: FileTransferLimits.maxFileBytes)
        var run = 0
        // Mostly a steady chunk size (as the driver asks), sometimes another (pieced together);
        // files up to three of the direct reader's 1 MiB blocks.
        await propertyCheck(count: 30, input: Gen.int(in: 0...3_200_000), Gen.double(in: 0...1), Gen.int(in: 1...40_000),
                            Gen.int(in: 1...50_000).array(of: 0...3)) { size, resumeAt, chunk, others in
            run += 1
            let name = "file-\(run)"
            let bytes = FileTransferSessionTests.randomBytes(size, seed: UInt64(run) &* 7919 &+ UInt64(size))
            #expect(FileManager.default.createFile(atPath: directory.appendingPathComponent(name).path, contents: Data(bytes)))
            let reader = DownloadReader()
            let path = try! RemotePath(parsing: name)
            let offset = Int(Double(size) * resumeAt)
            let open = FileOpen(requestID: 1, direction: .download, flags: offset > 0 ? [.resume] : [], path: name, offset: UInt64(offset))
            guard case .success(let ready) = await reader.open(open, path: path, sharing: sharing) else {
                Issue.record("the file did not open")
                return
            }
            #expect(ready.offset == UInt64(offset))
            if offset > 0 { #expect(ready.prefixDigest == FileDigest.of(Array(bytes[..<offset]))) }
            var received = Array(bytes[..<offset])
            var ask = 0
            while received.count < size {
                let count = ask % 5 == 4 && !others.isEmpty ? others[ask % others.count] : chunk
                ask += 1
                guard case .success(let data) = await reader.read(min(count, size - received.count)) else {
                    Issue.record("a read failed")
                    return
                }
                #expect(data.count == min(count, size - received.count), "size \(size) from \(offset), chunk \(chunk), others \(others)")
                received += data
                let ahead = await reader.chunksAhead
                #expect(ahead <= DownloadReader.aheadChunks, "\(ahead) chunks held ahead")
                if data.isEmpty { break }
            }
            #expect(received == bytes, "size \(size) from \(offset), chunk \(chunk), others \(others)")
            guard case .success(let digest) = await reader.finish() else {
                Issue.record("finish failed")
                return
            }
            #expect(digest == FileDigest.of(bytes))
            await reader.close()
        }
    }

    /// A file source on a disk reads with O_DIRECT (the download's data bypasses the page cache).
    @Test func aDownloadOnADiskBypassesThePageCache() throws {
        let directory = URL(fileURLWithPath: "/var/tmp").appendingPathComponent("zrc-direct-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(FileManager.default.createFile(atPath: directory.appendingPathComponent("a").path, contents: Data(count: 10_000)))
        let root = try ConfinedDirectory.open(directory.path)
        let source = try FileSource(try RemotePath(parsing: "a"), in: root, maxBytes: 1 << 20, direct: true)
        #expect(source.readsDirect)
        #expect(try source.read(20_000).count == 10_000)
        source.close()
    }
}
