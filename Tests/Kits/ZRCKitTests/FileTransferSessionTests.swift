import Foundation
import Testing
import ZRCControllerKit
import ZRCFiles
import ZRCHostKit
import ZRCKitTesting
import ZRCProtocol

/// File transfer between a real host and controller on loopback, with files on disk: both
/// directions bit-identical, modes and times kept, no replacing without asking, and the root's
/// confinement against a symbolic link leading out.
@Suite struct FileTransferSessionTests {
    struct Fixture {
        let root: URL
        let local: URL
        let harness: HostHarness

        init(directions: FileTerms.Directions = .both) throws {
            let base = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-files-\(UUID().uuidString)")
            root = base.appendingPathComponent("root")
            local = base.appendingPathComponent("local")
            try FileManager.default.createDirectory(at: root.appendingPathComponent("Downloads"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: local, withIntermediateDirectories: true)
            let sharing = FileSharing(root: try ConfinedDirectory.open(root.path), directions: directions,
                                      uploadDirectory: try RemotePath(parsing: "Downloads"), maxFileBytes: 1 << 30)
            harness = try HostHarness(files: sharing)
        }

        func session(viewOnly: Bool = false) async throws -> ControllerSession {
            _ = try await harness.start()
            let (controller, _) = harness.controller(capabilities: [.textInput, .fileTransfer])
            try await harness.pair(controller, name: "desk")
            return try await controller.connect(to: "desk", viewOnly: viewOnly)
        }
    }

    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    @Test func uploadThenDownloadIsBitIdentical() async throws {
        let fixture = try Fixture()
        try await fixture.harness.stoppingAfter {
            let session = try await fixture.session()
            let bytes = Self.randomBytes(3 * 1024 * 1024 + 17, seed: 7)
            let source = fixture.local.appendingPathComponent("data.bin")
            try Data(bytes).write(to: source)
            try FileManager.default.setAttributes([.posixPermissions: 0o640, .modificationDate: Date(timeIntervalSince1970: 1_700_000_000)],
                                                  ofItemAtPath: source.path)
            try await session.files.upload(localPath: source.path, to: try RemotePath(parsing: "Downloads/data.bin"), replace: false,
                                           resume: false) { _ in }
            let uploaded = fixture.root.appendingPathComponent("Downloads/data.bin")
            #expect(try Data(contentsOf: uploaded) == Data(bytes))
            let attributes = try FileManager.default.attributesOfItem(atPath: uploaded.path)
            #expect(attributes[.posixPermissions] as? Int == 0o640)
            #expect((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 == 1_700_000_000)

            // A second upload without replace is refused and leaves the file as it was.
            await #expect(throws: FileTransferError.self) {
                try await session.files.upload(localPath: source.path, to: try RemotePath(parsing: "Downloads/data.bin"), replace: false,
                                               resume: false) { _ in }
            }

            let listing = try await session.files.list(try RemotePath(parsing: "Downloads"))
            #expect(listing.map(\.shownName) == ["data.bin"])
            #expect(listing.first?.size == UInt64(bytes.count))

            let into = try ConfinedDirectory.open(fixture.local.path)
            try await session.files.download(try RemotePath(parsing: "Downloads/data.bin"), into: into, as: try FileName(validating: "back.bin"),
                                             size: UInt64(bytes.count), replace: false, resume: false) { _ in }
            #expect(try Data(contentsOf: fixture.local.appendingPathComponent("back.bin")) == Data(bytes))
            await session.close()
        }
    }

    /// `--limit`: 1 MiB each way at 512 KiB a second takes two seconds less the path's window
    /// (64 KiB); only a lower bound is checked (a loaded machine makes it longer, never shorter).
    @Test func aRateLimitHoldsBothDirections() async throws {
        let fixture = try Fixture()
        try await fixture.harness.stoppingAfter {
            let session = try await fixture.session()
            await session.files.limitRate(TransferRateLimit(parsing: "512K"))
            let bytes = Self.randomBytes(1 << 20, seed: 11)
            let source = fixture.local.appendingPathComponent("limited.bin")
            try Data(bytes).write(to: source)
            let clock = ContinuousClock()
            var started = clock.now
            try await session.files.upload(localPath: source.path, to: try RemotePath(parsing: "Downloads/limited.bin"), replace: false,
                                           resume: false) { _ in }
            #expect(clock.now - started > .milliseconds(1800), "upload: \(clock.now - started)")
            started = clock.now
            let into = try ConfinedDirectory.open(fixture.local.path)
            try await session.files.download(try RemotePath(parsing: "Downloads/limited.bin"), into: into,
                                             as: try FileName(validating: "back.bin"), size: UInt64(bytes.count), replace: false,
                                             resume: false) { _ in }
            #expect(clock.now - started > .milliseconds(1700), "download: \(clock.now - started)")
            #expect(try Data(contentsOf: fixture.local.appendingPathComponent("back.bin")) == Data(bytes))
            await session.close()
        }
    }

    @Test func aSymbolicLinkLeadingOutOfTheRootIsRefused() async throws {
        let fixture = try Fixture()
        try FileManager.default.createSymbolicLink(atPath: fixture.root.appendingPathComponent("etc").path, withDestinationPath: "/etc")
        try await fixture.harness.stoppingAfter {
            let session = try await fixture.session()
            do {
                _ = try await session.files.list(try RemotePath(parsing: "etc"))
                Issue.record("listing through a link out of the root succeeded")
            } catch let error as FileTransferError {
                #expect(error.kind == .host(.invalidPath) || error.kind == .host(.notDirectory), "\(error)")
            }
            let into = try ConfinedDirectory.open(fixture.local.path)
            await #expect(throws: FileTransferError.self) {
                try await session.files.download(try RemotePath(parsing: "etc/passwd"), into: into, as: try FileName(validating: "passwd"),
                                                 size: 0, replace: false, resume: false) { _ in }
            }
            #expect(!FileManager.default.fileExists(atPath: fixture.local.appendingPathComponent("passwd").path))
            await session.close()
        }
    }

    @Test func uploadOnlyHostRefusesDownloads() async throws {
        let fixture = try Fixture(directions: .upload)
        try await fixture.harness.stoppingAfter {
            let session = try await fixture.session()
            let into = try ConfinedDirectory.open(fixture.local.path)
            do {
                try await session.files.download(try RemotePath(parsing: "Downloads/x"), into: into, as: try FileName(validating: "x"),
                                                 size: 0, replace: false, resume: false) { _ in }
                Issue.record("a download from an upload-only host succeeded")
            } catch let error as FileTransferError {
                #expect(error.kind == .refused)
            }
            await session.close()
        }
    }

    @Test func aViewOnlySessionIsRefusedEveryFileRequest() async throws {
        let fixture = try Fixture()
        try await fixture.harness.stoppingAfter {
            let session = try await fixture.session(viewOnly: true)
            let terms = try await session.files.waitForTerms()
            #expect(terms.directions.isEmpty, "a watcher is told it may transfer nothing")
            let source = fixture.local.appendingPathComponent("a.txt")
            try Data("hello".utf8).write(to: source)
            do {
                try await session.files.upload(localPath: source.path, to: try RemotePath(parsing: "Downloads/a.txt"), replace: false,
                                               resume: false) { _ in }
                Issue.record("a view-only session uploaded")
            } catch let error as FileTransferError {
                #expect(error.kind == .refused, "\(error)")
                #expect(error.text.contains("view-only"), "the refusal says why: \(error)")
            }
            #expect(!FileManager.default.fileExists(atPath: fixture.root.appendingPathComponent("Downloads/a.txt").path))
            await session.close()
        }
    }
}
