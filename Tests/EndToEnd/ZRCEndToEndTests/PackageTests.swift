import Foundation
import Testing

/// The Debian packages Tools/test.sh built with Tools/package.sh and installed into a fresh Debian
/// without a Swift toolchain with Tools/package-check.sh (run there, alone, before the suite: it
/// is heavy on the disk), and `Tools/zrc.sh` with nothing to rebuild.
@Suite struct PackageTests {
    static func packagesDirectory() throws -> String {
        let directory = ProcessInfo.processInfo.environment["ZRC_PACKAGES_DIR"] ?? ""
        try #require(!directory.isEmpty, "ZRC_PACKAGES_DIR is not set: run the tests through Tools/test.sh, which builds and checks the packages")
        return directory
    }

    static func repository() throws -> String {
        let repository = ProcessInfo.processInfo.environment["ZRC_REPOSITORY"] ?? ""
        try #require(!repository.isEmpty, "ZRC_REPOSITORY is not set: run the tests through Tools/test.sh")
        return repository
    }

    @Test func thePackagesInstallAndRunOnADebianWithoutSwift() throws {
        let directory = try Self.packagesDirectory()
        let status = try? String(contentsOfFile: "\(directory)/check.status", encoding: .utf8)
        let log = (try? String(contentsOfFile: "\(directory)/check.log", encoding: .utf8)) ?? ""
        try #require(status != nil, "no result of Tools/package-check.sh in \(directory): run the tests through Tools/test.sh")
        print(log)
        #expect(status?.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "the package check failed:\n\(log)")
        for check in ["apt-get installed", "zrc-host: ldd finds every library", "zrc-ctl: ldd finds every library", "zrc-ctl --version",
                      "zrc-host identity --key-store file made a key", "zrc-ctl: man page", "zrc-host: bash, zsh and fish completions",
                      "zrc-host.service installed", "systemd-analyze verify accepts both units",
                      "zrc-ctl: a valid desktop entry that runs `zrc-ctl app`", "removing the packages leaves none of their files"] {
            #expect(log.contains("ok: \(check)"), "missing check: \(check)")
        }
        // The check's subject is what Tools/package.sh built this run.
        let built = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".deb") }
        #expect(built.count == 2, "\(built)")
        for deb in built { #expect(log.contains(deb), "the check did not install \(deb)") }
    }

    /// "ZRC" in the applications menu: zrc-ctl ships its desktop entry and icon as data files
    /// (0644), and the entry runs `zrc-ctl app`.
    @Test func zrcCtlShipsItsDesktopEntryAndIcon() async throws {
        let directory = try Self.packagesDirectory()
        let debs = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("zrc-ctl_") && $0.hasSuffix(".deb") }
        let deb = "\(directory)/\(try #require(debs.first, "no zrc-ctl_*.deb in \(directory)"))"
        let listing = try await Spawn.runOffPool(["dpkg-deb", "-c", deb])
        #expect(listing.status == 0, "\(listing.stderr)")
        for path in ["./usr/share/applications/zrc.desktop", "./usr/share/icons/hicolor/scalable/apps/zrc.svg"] {
            let line = listing.stdout.split(separator: "\n").first { $0.hasSuffix(" \(path)") }
            #expect(line?.hasPrefix("-rw-r--r-- root/root") == true, "\(path) in \(deb): \(line.map(String.init) ?? "missing")")
        }
        let entry = try await Spawn.runOffPool(["sh", "-c", "dpkg-deb --fsys-tarfile \"$1\" | tar -xOf - ./usr/share/applications/zrc.desktop", "sh", deb])
        #expect(entry.status == 0, "\(entry.stderr)")
        #expect(entry.stdout.split(separator: "\n").contains("Exec=zrc-ctl app"), "\(entry.stdout)")
    }

    /// The release programs are current (Tools/package.sh built them from these sources), so the
    /// main command runs them without building and prints nothing of its own.
    @Test func zrcShRunsWithoutRebuildingOrBuildOutput() async throws {
        _ = try Self.packagesDirectory()
        let script = "\(try Self.repository())/Tools/zrc.sh"
        for attempt in 1...2 {
            let result = try await Spawn.runOffPool([script, "ctl", "--version"])
            #expect(result.status == 0, "attempt \(attempt): \(result.stderr)")
            #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("0."), "attempt \(attempt): \(result.stdout)")
            #expect(result.stderr.isEmpty, "attempt \(attempt) printed: \(result.stderr)")
        }
    }
}
