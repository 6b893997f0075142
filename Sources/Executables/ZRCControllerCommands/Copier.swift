import Foundation
import Glibc
import ZRCCommandSupport
import ZRCControllerKit
import ZRCFiles
import ZRCProtocol

/// What `cp` does once connected: resolves destinations as scp does (into a directory that
/// exists, else to the name given), walks trees with `-r`, and skips — counting, never failing the
/// rest — what cannot be copied: invalid names, symbolic links, special files.
struct Copier {
    let files: FileTransferClient
    let report: CopyReport
    let recursive: Bool
    let force: Bool
    let resume: Bool
    private(set) var skipped = 0

    init(files: FileTransferClient, report: CopyReport, recursive: Bool, force: Bool, resume: Bool) {
        self.files = files
        self.report = report
        self.recursive = recursive
        self.force = force
        self.resume = resume
    }

    // MARK: Upload

    mutating func upload(_ sources: [String], to destination: RemotePath) async throws {
        let existing = try? await files.list(destination, itself: true).first
        let intoDirectory = destination.components.isEmpty || existing?.kind == .directory
        if sources.count > 1, !intoDirectory { throw CommandError(.failure, "\(destination) is not a directory on the host") }
        for source in sources {
            let base = URL(fileURLWithPath: source).lastPathComponent
            let target: RemotePath
            if intoDirectory {
                guard let name = validName(base, shown: source) else { continue }
                target = destination.appending(name)
            } else {
                target = destination
            }
            var status = stat()
            guard lstat(source, &status) == 0 else { throw CommandError(.failure, "\(source): \(String(cString: strerror(errno)))") }
            switch status.st_mode & S_IFMT {
            case S_IFDIR:
                guard recursive else {
                    skip(source, "is a directory (copy it with -r)")
                    continue
                }
                try await uploadTree(source, to: target, depth: 0)
            case S_IFREG:
                try await uploadFile(source, to: target)
            default:
                skip(source, "is not a regular file or directory")
            }
        }
    }

    private mutating func uploadTree(_ local: String, to remote: RemotePath, depth: Int) async throws {
        guard depth < FileTransferLimits.maxDepth, remote.components.count <= FileTransferLimits.maxDepth else {
            skip(local, "is deeper than \(FileTransferLimits.maxDepth) levels")
            return
        }
        try await files.makeDirectory(remote)
        let names = try FileManager.default.contentsOfDirectory(atPath: local).sorted()
        for entry in names {
            let path = local + "/" + entry
            guard let name = validName(entry, shown: path) else { continue }
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }
            switch status.st_mode & S_IFMT {
            case S_IFDIR: try await uploadTree(path, to: remote.appending(name), depth: depth + 1)
            case S_IFREG: try await uploadFile(path, to: remote.appending(name))
            case S_IFLNK: skip(path, "is a symbolic link (not followed)")
            default: skip(path, "is not a regular file or directory")
            }
        }
    }

    private func uploadFile(_ local: String, to remote: RemotePath) async throws {
        let size = (try? FileManager.default.attributesOfItem(atPath: local))?[.size] as? UInt64 ?? 0
        let progress = report.start(remote.text, total: size)
        try await files.upload(localPath: local, to: remote, replace: force, resume: resume) { progress.update($0) }
        progress.done()
    }

    // MARK: Download

    mutating func download(_ sources: [RemotePath], to local: String) async throws {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: local, isDirectory: &isDirectory)
        if sources.count > 1 || recursive, exists, !isDirectory.boolValue { throw CommandError(.failure, "\(local) is not a directory") }
        if sources.count > 1, !exists { throw CommandError(.failure, "\(local) does not exist (several sources go into a directory)") }
        let intoDirectory = exists && isDirectory.boolValue
        let parentPath = intoDirectory ? local : (URL(fileURLWithPath: local).deletingLastPathComponent().path)
        let parent: ConfinedDirectory
        do {
            parent = try ConfinedDirectory.open(parentPath.isEmpty ? "." : parentPath)
        } catch {
            throw CommandError(.failure, error.text)
        }
        defer { parent.close() }
        for source in sources {
            guard let entry = try await files.list(source, itself: true).first else { continue }
            let name: FileName
            if intoDirectory {
                guard let remoteName = source.name ?? validEntryName(entry, shown: source.description) else { continue }
                name = remoteName
            } else {
                guard let localName = validName(URL(fileURLWithPath: local).lastPathComponent, shown: local) else { continue }
                name = localName
            }
            switch entry.kind {
            case .file:
                try await downloadFile(source, into: parent, as: name, size: entry.size)
            case .directory:
                guard recursive else {
                    skip(source.description, "is a directory (copy it with -r)")
                    continue
                }
                try await downloadTree(source, into: parent, as: name, depth: 0)
            case .symbolicLink, .other:
                skip(source.description, "is not a regular file or directory")
            }
        }
    }

    private mutating func downloadTree(_ remote: RemotePath, into parent: ConfinedDirectory, as name: FileName, depth: Int) async throws {
        guard depth < FileTransferLimits.maxDepth else {
            skip(remote.description, "is deeper than \(FileTransferLimits.maxDepth) levels")
            return
        }
        let directory: ConfinedDirectory
        do {
            directory = try parent.makeDirectory(name, mode: 0o755)
        } catch {
            throw CommandError(.failure, error.text)
        }
        defer { directory.close() }
        for entry in try await files.list(remote) {
            guard let entryName = validEntryName(entry, shown: "\(remote)/\(entry.shownName)") else { continue }
            let path = remote.appending(entryName)
            switch entry.kind {
            case .file: try await downloadFile(path, into: directory, as: entryName, size: entry.size)
            case .directory: try await downloadTree(path, into: directory, as: entryName, depth: depth + 1)
            case .symbolicLink: skip(path.description, "is a symbolic link on the host (none is created here)")
            case .other: skip(path.description, "is not a regular file or directory")
            }
        }
    }

    private func downloadFile(_ remote: RemotePath, into directory: ConfinedDirectory, as name: FileName, size: UInt64) async throws {
        let own: ConfinedDirectory
        do {
            own = try directory.directory(.root)
        } catch {
            throw CommandError(.failure, error.text)
        }
        let progress = report.start(remote.text, total: size)
        try await files.download(remote, into: own, as: name, size: size, replace: force, resume: resume) { progress.update($0) }
        progress.done()
    }

    // MARK: Skipping

    private mutating func validName(_ text: String, shown: String) -> FileName? {
        do {
            return try FileName(validating: text)
        } catch {
            skip(shown, "has \(error.problem)")
            return nil
        }
    }

    private mutating func validEntryName(_ entry: FileEntry, shown: String) -> FileName? {
        switch entry.validName {
        case .success(let name): return name
        case .failure(let problem):
            skip(FileName.escaped(entry.name), "has \(problem.problem)")
            return nil
        }
    }

    private mutating func skip(_ what: String, _ why: String) {
        skipped += 1
        report.skipped(what, why)
    }
}
