import Foundation

/// A fresh directory per test, removed afterwards.
struct TemporaryDirectory: ~Copyable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-storage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    func write(_ text: String, to name: String, mode: Int = 0o600) throws -> URL {
        let target = file(name)
        try Data(text.utf8).write(to: target)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: target.path)
        return target
    }
}

func mode(of url: URL) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
}
