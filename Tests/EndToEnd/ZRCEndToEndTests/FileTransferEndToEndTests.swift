import Foundation
import Testing
import ZRCXTestSupport

/// `zrc-ctl cp` and `ls` between real processes with files on disk: both directions with nested
/// directories and empty files, a 200 MB file bit-identical, resume after the controller is
/// killed, --force, every escape a controller may try, names that are not UTF-8, a host that
/// allows uploads only or no transfer, and a full disk.
@Suite struct FileTransferEndToEndTests {
    /// The host's transfer root: its home (the environment gives each role one of its own).
    static func home(_ rig: ViewerRig) -> URL { rig.env.root.appendingPathComponent("host/home") }

    static func ctl(_ rig: ViewerRig, _ arguments: [String], timeout: Duration = .seconds(300)) async throws
        -> (status: Int32, stdout: String, stderr: String) {
        try await rig.env.run("zrc-ctl", arguments + ["--key-id", rig.controllerKey], role: "controller", timeout: timeout)
    }

    static func write(_ url: URL, _ data: Data, mode: Int = 0o644, modified: TimeInterval? = nil) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
        var attributes: [FileAttributeKey: Any] = [.posixPermissions: mode]
        if let modified { attributes[.modificationDate] = Date(timeIntervalSince1970: modified) }
        try FileManager.default.setAttributes(attributes, ofItemAtPath: url.path)
    }

    static func random(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        var data = Data(count: count)
        data.withUnsafeMutableBytes { raw in
            var index = 0
            while index + 8 <= count {
                raw.storeBytes(of: generator.next(), toByteOffset: index, as: UInt64.self)
                index += 8
            }
            while index < count { raw[index] = UInt8.random(in: 0...255, using: &generator); index += 1 }
        }
        return data
    }

    /// Same bytes (compared by `cmp`, so 200 MB are never held twice).
    static func identical(_ a: URL, _ b: URL) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/cmp")
        process.arguments = ["-s", a.path, b.path]
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    static func attributes(_ url: URL) -> (mode: Int, modified: TimeInterval)? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
        return ((attributes[.posixPermissions] as? Int) ?? -1, (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? -1)
    }

    @Test func recursiveCopiesGoBothWaysWithNestedDirectoriesEmptyFilesModesAndTimes() async throws {
        let rig = try await ViewerRig()
        do {
            let local = rig.env.root.appendingPathComponent("local/tree")
            try Self.write(local.appendingPathComponent("a.txt"), Data("alpha\n".utf8), mode: 0o600, modified: 1_600_000_000)
            try Self.write(local.appendingPathComponent("empty"), Data())
            try Self.write(local.appendingPathComponent("sub/deep/b.bin"), Self.random(300_001), mode: 0o755)
            try FileManager.default.createDirectory(at: local.appendingPathComponent("sub/nothing"), withIntermediateDirectories: true)

            let up = try await Self.ctl(rig, ["cp", "-r", local.path, "desk:"])
            #expect(up.status == 0, "\(up.stderr)")
            let remote = Self.home(rig).appendingPathComponent("tree")
            #expect(try Data(contentsOf: remote.appendingPathComponent("a.txt")) == Data("alpha\n".utf8))
            #expect(Self.attributes(remote.appendingPathComponent("a.txt"))?.mode == 0o600)
            #expect(Self.attributes(remote.appendingPathComponent("a.txt"))?.modified == 1_600_000_000)
            #expect(Self.attributes(remote.appendingPathComponent("empty")).map { _ in true } == true)
            #expect(Self.identical(local.appendingPathComponent("sub/deep/b.bin"), remote.appendingPathComponent("sub/deep/b.bin")))
            #expect(Self.attributes(remote.appendingPathComponent("sub/deep/b.bin"))?.mode == 0o755)
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: remote.appendingPathComponent("sub/nothing").path, isDirectory: &isDirectory) && isDirectory.boolValue)

            let listing = try await Self.ctl(rig, ["ls", "desk:tree", "--json"])
            #expect(listing.status == 0, "\(listing.stderr)")
            for name in ["a.txt", "empty", "sub"] { #expect(listing.stdout.contains("\"\(name)\""), "\(listing.stdout)") }

            let back = rig.env.root.appendingPathComponent("back")
            try FileManager.default.createDirectory(at: back, withIntermediateDirectories: true)
            let down = try await Self.ctl(rig, ["cp", "-r", "desk:tree", back.path])
            #expect(down.status == 0, "\(down.stderr)")
            #expect(Self.identical(local.appendingPathComponent("a.txt"), back.appendingPathComponent("tree/a.txt")))
            #expect(Self.attributes(back.appendingPathComponent("tree/a.txt"))?.modified == 1_600_000_000)
            #expect(Self.identical(local.appendingPathComponent("empty"), back.appendingPathComponent("tree/empty")))
            #expect(Self.identical(local.appendingPathComponent("sub/deep/b.bin"), back.appendingPathComponent("tree/sub/deep/b.bin")))
        } catch {
            Issue.record("\(error)")
        }
        await rig.close()
    }

    @Test func aLargeFileResumesAfterTheControllerIsKilledAndIsNeverReplacedWithoutForce() async throws {
        let rig = try await ViewerRig()
        do {
            let big = rig.env.root.appendingPathComponent("local/big.bin")
            try Self.write(big, Self.random(200 << 20))
            let remote = Self.home(rig).appendingPathComponent("big.bin")
            // Held to 20 MiB/s, so it is still running when it is killed whatever the machine's
            // load: unthrottled, a fast build's upload ended before a loaded test process looked.
            let arguments = ["cp", "--limit", "20M", big.path, "desk:", "--json", "--key-id", rig.controllerKey]
            let first = try rig.env.launch("zrc-ctl", arguments, role: "controller")
            // Killed once a good part of the file is on the host's disk (its part file).
            let partial = await Wait.until(.seconds(300)) { () -> UInt64? in
                let names = (try? FileManager.default.contentsOfDirectory(atPath: Self.home(rig).path)) ?? []
                guard let part = names.first(where: { $0.hasPrefix(".zrc-") && $0.hasSuffix(".part") }) else { return nil }
                let size = (try? FileManager.default.attributesOfItem(atPath: Self.home(rig).appendingPathComponent(part).path)[.size] as? UInt64) ?? 0
                return size >= 40 << 20 ? size : nil
            }
            #expect(partial != nil, "the upload never got going: \(first.stderr)")
            await first.kill9()
            #expect(!FileManager.default.fileExists(atPath: remote.path), "no half-written target")

            let resumed = try await Self.ctl(rig, ["cp", "--resume", "--json", big.path, "desk:"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(Self.identical(big, remote), "the resumed file is bit-identical")
            // The first progress line starts where the kept part ended.
            let firstProgress = resumed.stdout.split(separator: "\n").first { $0.contains("\"progress\"") || $0.contains("\"done\"") }
            let startedAt = firstProgress.flatMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["bytes"] as? Int
            }
            #expect((startedAt ?? 0) > 0, "resumed from the part, not from 0: \(resumed.stdout.prefix(400))")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: Self.home(rig).path).filter { $0.hasSuffix(".part") }
            #expect(leftovers.isEmpty, "the part took the file's name: \(leftovers)")

            let again = try await Self.ctl(rig, ["cp", big.path, "desk:"])
            #expect(again.status != 0 && again.stderr.contains("exists"), "no replacing without --force: \(again.stderr)")
            try Self.write(big, Data("smaller now\n".utf8))
            let forced = try await Self.ctl(rig, ["cp", "--force", big.path, "desk:"])
            #expect(forced.status == 0, "\(forced.stderr)")
            #expect(try Data(contentsOf: remote) == Data("smaller now\n".utf8))
        } catch {
            Issue.record("\(error)")
        }
        await rig.close()
    }

    @Test func everyEscapeFromTheTransferRootIsRefused() async throws {
        let rig = try await ViewerRig()
        do {
            let home = Self.home(rig)
            let outside = rig.env.root.appendingPathComponent("outside")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: home.appendingPathComponent("etc").path, withDestinationPath: "/etc")
            try FileManager.default.createSymbolicLink(atPath: home.appendingPathComponent("out").path, withDestinationPath: outside.path)
            let file = rig.env.root.appendingPathComponent("local/note.txt")
            try Self.write(file, Data("note".utf8))
            let back = rig.env.root.appendingPathComponent("back")
            try FileManager.default.createDirectory(at: back, withIntermediateDirectories: true)

            for target in ["desk:../note.txt", "desk:/tmp/note.txt", "desk:out/note.txt", "desk:etc/note.txt", "desk:a//b"] {
                let result = try await Self.ctl(rig, ["cp", file.path, target])
                #expect(result.status != 0, "\(target) was accepted")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty, "nothing landed outside the root")
            for source in ["desk:etc/passwd", "desk:../../etc/passwd", "desk:/etc/passwd", "desk:out"] {
                let result = try await Self.ctl(rig, ["cp", "-r", source, back.path])
                #expect(result.status != 0, "\(source) was copied: \(result.stdout)")
            }
            #expect(!FileManager.default.fileExists(atPath: back.appendingPathComponent("passwd").path))
            let listing = try await Self.ctl(rig, ["ls", "desk:etc"])
            #expect(listing.status != 0 && !listing.stdout.contains("passwd"), "\(listing.stdout)")

            // A name that is not UTF-8 on the host: skipped with its bytes escaped, the rest copied, exit 9.
            let odd = home.appendingPathComponent("odd")
            try FileManager.default.createDirectory(at: odd, withIntermediateDirectories: true)
            try Self.write(odd.appendingPathComponent("fine.txt"), Data("fine".utf8))
            // "bad-", then 0xFF (not UTF-8) and ESC [31m (a colour change, were it printed raw).
            let badPath = Array(odd.path.utf8) + Array("/bad-".utf8) + [0xFF, 0x1B, 0x5B, 0x33, 0x31, 0x6D, 0]
            let created = badPath.withUnsafeBufferPointer { buffer -> Bool in
                let fd = open(UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644)
                if fd >= 0 { close(fd) }
                return fd >= 0
            }
            #expect(created)
            let skipped = try await Self.ctl(rig, ["cp", "-r", "desk:odd", back.path])
            #expect(skipped.status == 9, "some entries skipped: \(skipped.status) \(skipped.stderr)")
            #expect(skipped.stderr.contains("\\xFF"), "the name's bytes are shown escaped: \(skipped.stderr)")
            #expect(!skipped.stderr.contains("\u{1B}["), "no escape sequence reaches the terminal")
            #expect(FileManager.default.fileExists(atPath: back.appendingPathComponent("odd/fine.txt").path))
            #expect(try FileManager.default.contentsOfDirectory(atPath: back.appendingPathComponent("odd").path) == ["fine.txt"])
        } catch {
            Issue.record("\(error)")
        }
        await rig.close()
    }

    @Test func aDirectorySwappedForALinkDuringAnUploadNeverLetsTheFileOut() async throws {
        let rig = try await ViewerRig()
        do {
            let home = Self.home(rig)
            let outside = rig.env.root.appendingPathComponent("outside")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: home.appendingPathComponent("drop"), withIntermediateDirectories: true)
            // Held to 256 KiB a second, the 8 MiB take half a minute: the swap below lands in the
            // middle of the upload however loaded the machine (unlimited, a fast upload could end
            // before this test's task saw its part).
            let big = rig.env.root.appendingPathComponent("local/big.bin")
            try Self.write(big, Self.random(8 << 20))
            let clock = ContinuousClock()
            let launched = clock.now
            let upload = try rig.env.launch("zrc-ctl", ["cp", "--limit", "256K", big.path, "desk:drop/", "--key-id", rig.controllerKey],
                                            role: "controller")
            let started = await Wait.until(.seconds(300)) { () -> Bool? in
                let names = (try? FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent("drop").path)) ?? []
                return names.contains { $0.hasSuffix(".part") } ? true : nil
            }
            #expect(started != nil, "the upload never started: \(upload.stderr)")
            #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("drop/big.bin").path), "still under way")
            // The directory is moved away and a link to outside the root put in its place.
            try FileManager.default.moveItem(at: home.appendingPathComponent("drop"), to: home.appendingPathComponent("drop-moved"))
            try FileManager.default.createSymbolicLink(atPath: home.appendingPathComponent("drop").path, withDestinationPath: outside.path)
            _ = await upload.waitForExit(timeout: .seconds(300))
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty, "nothing landed outside the root")
            // The limit held: 8 MiB at 256 KiB a second less the path's window is over 25 s from the
            // launch (a lower bound only: a loaded machine makes it longer, never shorter; counted
            // from the swap, it once read 18 s, the wait for the part having taken the rest).
            #expect(clock.now - launched > .seconds(25), "--limit 256K held the upload back: \(clock.now - launched)")
        } catch {
            Issue.record("\(error)")
        }
        await rig.close()
    }

    @Test func theHostsSettingsAndAFullDiskGiveClearRefusals() async throws {
        let rig = try await ViewerRig()
        let small = Self.home(rig).appendingPathComponent("small")
        var mounted = false
        do {
            let file = rig.env.root.appendingPathComponent("local/four.bin")
            try Self.write(file, Self.random(4 << 20))
            let back = rig.env.root.appendingPathComponent("back")
            try FileManager.default.createDirectory(at: back, withIntermediateDirectories: true)

            // A 2 MiB tmpfs beneath the root: a 4 MiB upload is refused before a byte is written.
            try FileManager.default.createDirectory(at: small, withIntermediateDirectories: true)
            mounted = try Self.mountTmpfs(small, size: "2m")
            let full = try await Self.ctl(rig, ["cp", file.path, "desk:small/"])
            #expect(full.status != 0 && full.stderr.contains("space"), "a clear error: \(full.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: small.path).isEmpty, "no target and no part left")

            await rig.stopHost()
            try rig.env.writeConfig(#"{"fileTransfer": "upload"}"#, file: "host.json", role: "host")
            try await rig.restartHost()
            let up = try await Self.ctl(rig, ["cp", file.path, "desk:"])
            #expect(up.status == 0, "uploads still work: \(up.stderr)")
            let down = try await Self.ctl(rig, ["cp", "desk:four.bin", back.path])
            #expect(down.status != 0 && down.stderr.contains("does not allow downloads"), "\(down.stderr)")
            #expect(!FileManager.default.fileExists(atPath: back.appendingPathComponent("four.bin").path))

            await rig.stopHost()
            try rig.env.writeConfig(#"{"fileTransfer": "off"}"#, file: "host.json", role: "host")
            try await rig.restartHost()
            let off = try await Self.ctl(rig, ["cp", file.path, "desk:again.bin"])
            #expect(off.status != 0 && off.stderr.contains("transfer"), "\(off.stderr)")
            let listing = try await Self.ctl(rig, ["ls", "desk:"])
            #expect(listing.status != 0, "\(listing.stdout)")
            #expect(!FileManager.default.fileExists(atPath: Self.home(rig).appendingPathComponent("again.bin").path))
        } catch {
            Issue.record("\(error)")
        }
        if mounted { Self.unmount(small) }
        await rig.close()
    }

    static func mountTmpfs(_ directory: URL, size: String) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mount")
        process.arguments = ["-t", "tmpfs", "-o", "size=\(size),mode=0755", "tmpfs", directory.path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SetupError("cannot mount a tmpfs at \(directory.path) (the tests run as root): mount exited \(process.terminationStatus)")
        }
        return true
    }

    static func unmount(_ directory: URL) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/umount")
        process.arguments = ["--lazy", directory.path]
        try? process.run()
        process.waitUntilExit()
    }
}
