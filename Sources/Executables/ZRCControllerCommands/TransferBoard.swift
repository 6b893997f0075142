import Foundation
import Glibc
import ZRCProtocol
import ZRCStorage

/// How a `zrc-ctl cp` tells a terminal viewer of the same host what it is doing: one small file
/// per copying process in the runtime directory (`$XDG_RUNTIME_DIR/zrc/transfers/PID.json`, 0600,
/// written atomically at most five times a second), which the viewer reads once a second for its
/// status line. A file whose process is gone, or that was not refreshed for 5 s, is ignored.
enum TransferBoard {
    struct Entry: Codable {
        var host: String
        var file: String
        var done: UInt64
        var total: UInt64
        var bytesPerSecond: Int
    }

    static var directory: URL {
        ZRCPaths.fromEnvironment(ProcessInfo.processInfo.environment).runtimeDirectory.appendingPathComponent("transfers")
    }

    static var own: URL { directory.appendingPathComponent("\(getpid()).json") }

    /// This process's transfer now (best effort: a viewer's status line is not worth failing a copy for).
    static func post(_ entry: Entry) {
        guard let data = try? JSONEncoder().encode(entry) else { return }
        try? PrivateFile.writeAtomically(Array(data), to: own)
    }

    static func remove() {
        unlink(own.path)
    }

    /// What copies to or from `host` are doing, for the viewer's status line (nil: none).
    static func summary(host: String) -> String? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return nil }
        var parts: [String] = []
        for name in names.sorted() where name.hasSuffix(".json") {
            guard let pid = Int32(name.dropLast(5)), pid != getpid(), kill(pid, 0) == 0 || errno == EPERM else { continue }
            let file = directory.appendingPathComponent(name)
            var status = stat()
            // Refreshed recently, a regular file of ours, small: anything else is not a board entry.
            guard lstat(file.path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid(), status.st_size < 4096,
                  time(nil) - status.st_mtim.tv_sec <= 5,
                  let bytes = try? PrivateFile.read(file), let entry = try? JSONDecoder().decode(Entry.self, from: Data(bytes)),
                  entry.host == host else { continue }
            let percent = entry.total == 0 ? 100 : Int(Double(entry.done) * 100 / Double(entry.total))
            parts.append("⇅ \(TerminalSafeText.sanitized(entry.file)) \(percent)% \(CopyReport.bytes(UInt64(max(0, entry.bytesPerSecond))))/s")
        }
        return parts.isEmpty ? nil : parts.prefix(2).joined(separator: ", ") + (parts.count > 2 ? " …" : "")
    }
}
