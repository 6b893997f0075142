import Foundation
import PropertyBased
import Testing
@testable import ZRCFiles
import ZRCProtocol
import ZRCSodium

/// A part file written in pieces of any size, stopped anywhere and resumed, ends up exactly the
/// sender's bytes, on a disk (where it bypasses the page cache) and on a tmpfs alike.
@Suite struct FilePartWriteTests {
    static let fileSystems = ["/var/tmp", "/dev/shm"]

    @Test(arguments: fileSystems)
    func piecesOfAnySizeStoppedAndResumedAreTheSendersBytes(base: String) async throws {
        let directory = URL(fileURLWithPath: base).appendingPathComponent("zrc-part-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var run = 0
        await propertyCheck(count: 30, input: Gen.int(in: 0...(3 << 20)), Gen.double(in: 0...1), Gen.int(in: 1...70_000).array(of: 1...12)) { size, stop, pieces in
            run += 1
            let name = try! FileName(validating: "file-\(run).bin")
            let bytes = FileTransferSessionTests.randomBytes(size, seed: UInt64(size) &+ UInt64(run))
            let split = Int(Double(size) * stop)
            do {
                let first = try FilePart(name, in: try ConfinedDirectory.open(directory.path), size: UInt64(size), resume: false, replace: false)
                try Self.write(bytes[0..<split], to: first, pieces: pieces)
                first.abandon(keep: true)
                let second = try FilePart(name, in: try ConfinedDirectory.open(directory.path), size: UInt64(size), resume: true, replace: false)
                #expect(second.offset == UInt64(split), "the resume continues where the first stopped")
                #expect(second.prefixDigest == (split == 0 ? [UInt8](repeating: 0, count: FileDigest.length) : FileDigest.of(Array(bytes[0..<split]))))
                try Self.write(bytes[split...], to: second, pieces: pieces.reversed())
                try second.commit(expected: FileDigest.of(bytes), mode: 0o640, modifiedMicros: 1_700_000_000_000_000, replace: false)
                let written = try Data(contentsOf: directory.appendingPathComponent(name.text))
                #expect(written == Data(bytes), "size \(size), stopped at \(split), pieces \(pieces)")
            } catch {
                Issue.record("size \(size), stopped at \(split), pieces \(pieces): \(error)")
            }
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".part") }
        #expect(left.isEmpty, "no part stays behind a commit: \(left)")
    }

    /// The project's scripts keep their files on the machine's disk (ext4), which takes O_DIRECT.
    @Test func aLargeFileOnTheDiskBypassesThePageCache() throws {
        let directory = URL(fileURLWithPath: "/var/tmp").appendingPathComponent("zrc-part-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = FileTransferSessionTests.randomBytes(5 << 20, seed: 3)
        let part = try FilePart(try FileName(validating: "large.bin"), in: try ConfinedDirectory.open(directory.path), size: UInt64(bytes.count), resume: false, replace: false)
        #expect(part.bypassesPageCache, "O_DIRECT was refused on /var/tmp")
        try Self.write(bytes[...], to: part, pieces: [16_384])
        try part.commit(expected: FileDigest.of(bytes), mode: 0o600, modifiedMicros: 0, replace: false)
        #expect(try Data(contentsOf: directory.appendingPathComponent("large.bin")) == Data(bytes))
    }

    static func write(_ bytes: ArraySlice<UInt8>, to part: FilePart, pieces: [Int]) throws(FileSystemError) {
        var at = bytes.startIndex
        var index = 0
        while at < bytes.endIndex {
            let count = min(pieces[index % pieces.count], bytes.endIndex - at)
            try part.write(Array(bytes[at..<(at + count)]))
            at += count
            index += 1
        }
    }
}

/// The part's writer on its own, both ways it writes: direct where the file system takes O_DIRECT,
/// ordinary writes where it does not (no file system here refuses it, so that way is chosen).
@Suite struct StagedFileWriterTests {
    @Test(arguments: [true, false])
    func anyPiecesFromAnyOffsetLandInOrder(direct: Bool) async throws {
        let directory = URL(fileURLWithPath: "/var/tmp").appendingPathComponent("zrc-staged-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var run = 0
        // Up to five buffers' worth: the two buffers take turns several times.
        await propertyCheck(count: 25, input: Gen.int(in: 0...(5 << 20)), Gen.int(in: 0...9000), Gen.int(in: 1...300_000).array(of: 1...8)) { size, start, pieces in
            run += 1
            let path = directory.appendingPathComponent("file-\(run)").path
            let bytes = FileTransferSessionTests.randomBytes(start + size, seed: UInt64(run) &* 31 &+ UInt64(size))
            // What an earlier transfer left: the first `start` bytes, ending anywhere in a block.
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes[0..<start])))
            let descriptor = open(path, O_RDWR | O_CLOEXEC)
            #expect(descriptor >= 0)
            defer { close(descriptor) }
            let writer = StagedFileWriter(descriptor: descriptor, from: UInt64(start), expected: UInt64(size), shownPath: path, allowDirect: direct)
            #expect(writer.direct == direct, "direct I/O when allowed (ext4 takes it), else none")
            do {
                var at = start
                var index = 0
                while at < bytes.count {
                    let count = min(pieces[index % pieces.count], bytes.count - at)
                    try bytes[at..<(at + count)].withUnsafeBytes { (piece: UnsafeRawBufferPointer) throws in try writer.write(piece) }
                    at += count
                    index += 1
                }
                try writer.flush()
                #expect(writer.end == UInt64(bytes.count))
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes), "size \(size) from \(start), pieces \(pieces)")
            } catch {
                Issue.record("size \(size) from \(start), pieces \(pieces): \(error)")
            }
        }
    }

    /// A buffer's write fails on the writer's queue (here: a descriptor open for reading only):
    /// the failure reaches the caller at a later write or at the flush, never lost.
    @Test(arguments: [true, false])
    func aFailedBackgroundWriteIsReported(direct: Bool) throws {
        let path = "/var/tmp/zrc-staged-fail-\(UUID().uuidString)"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        let writer = StagedFileWriter(descriptor: descriptor, from: 0, expected: 3 << 20, shownPath: path, allowDirect: direct)
        let piece = [UInt8](repeating: 7, count: 100_000)
        var failure: (any Error)?
        do {
            for _ in 0..<32 { try piece.withUnsafeBytes { try writer.write($0) } }
            try writer.flush()
        } catch {
            failure = error
        }
        #expect(failure != nil, "3.2 MB into a read-only descriptor must fail")
        #expect(throws: FileSystemError.self, "and it stays failed") { try writer.flush() }
    }
}
