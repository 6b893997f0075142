import Foundation
import ZRCCommandSupport
import ZRCFiles
import ZRCHostKit
import ZRCProtocol
import ZRCStorage

/// host.json's file settings as the host kit's `FileSharing`: the root opened once (a missing or
/// unreadable root is an error at start, not at the first transfer), the upload directory checked
/// to lie beneath it and created when missing.
enum FileSharingWiring {
    static func sharing(_ config: HostConfig, turnedOff: Bool, environment: [String: String]) throws(CommandError) -> FileSharing? {
        let directions: FileTerms.Directions
        switch turnedOff ? .off : config.fileTransfer {
        case .off: return nil
        case .upload: directions = .upload
        case .download: directions = .download
        case .both: directions = .both
        }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
        let rootPath = config.fileRoot ?? home
        let root: ConfinedDirectory
        do {
            root = try ConfinedDirectory.open(rootPath)
        } catch {
            throw CommandError(.failure, "the file root \(rootPath) (host.json \"fileRoot\") cannot be opened: \(error)")
        }
        let uploadText = config.uploadDirectory ?? defaultUploadDirectory(root: rootPath, home: home, environment: environment)
        let upload: RemotePath
        do {
            upload = try RemotePath(parsing: uploadText)
        } catch {
            throw CommandError(.failure, "host.json \"uploadDirectory\" \(error): it must be a path beneath the file root \(rootPath)")
        }
        // Created when missing, inside the root (never through a symbolic link out of it).
        do {
            try root.makeDirectories(upload, mode: 0o755)
        } catch {
            throw CommandError(.failure, "the upload directory \(root.shown(upload)) cannot be made: \(error)")
        }
        return FileSharing(root: root, directions: directions, uploadDirectory: upload, maxFileBytes: config.maxFileBytes)
    }

    /// The XDG download directory (XDG_DOWNLOAD_DIR, or user-dirs.dirs) when it lies beneath the
    /// root, else `Downloads`.
    static func defaultUploadDirectory(root: String, home: String, environment: [String: String]) -> String {
        var candidate = environment["XDG_DOWNLOAD_DIR"]
        if candidate == nil {
            let configHome = environment["XDG_CONFIG_HOME"] ?? home + "/.config"
            if let text = try? String(contentsOfFile: configHome + "/user-dirs.dirs", encoding: .utf8) {
                for line in text.split(separator: "\n") where line.hasPrefix("XDG_DOWNLOAD_DIR=") {
                    candidate = line.dropFirst("XDG_DOWNLOAD_DIR=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                        .replacingOccurrences(of: "$HOME", with: home)
                }
            }
        }
        let prefix = root.hasSuffix("/") ? root : root + "/"
        if let candidate, candidate.hasPrefix(prefix), (try? RemotePath(parsing: String(candidate.dropFirst(prefix.count)))) != nil {
            return String(candidate.dropFirst(prefix.count))
        }
        return "Downloads"
    }
}
