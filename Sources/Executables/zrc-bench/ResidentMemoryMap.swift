import Foundation

/// A process's resident memory (RSS, what VmRSS counts) by mapping, read from /proc/PID/smaps:
/// the program's own code and data, each shared library, the malloc heap, anonymous mappings
/// (malloc's large blocks and arenas, thread stacks) and shared memory. `flood
/// --memory-breakdown` prints the host's, to show where its memory goes.
struct ResidentMemoryMap {
    /// Kibibytes resident by part, e.g. "program code", "libc", "anonymous".
    var kilobytes: [String: Int] = [:]

    var total: Int { kilobytes.values.reduce(0, +) }

    init?(pid: Int32) {
        guard let text = Self.read("/proc/\(pid)/smaps") else { return nil }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? "?"
        var part = "anonymous"
        for line in text.split(separator: "\n") {
            let fields = line.split(whereSeparator: \.isWhitespace)
            if fields.count >= 5, fields[0].contains("-"), fields[1].count == 4 {
                // A mapping's header: range, permissions, offset, device, inode, [path].
                let path = fields.dropFirst(5).joined(separator: " ")
                part = Self.part(path: path, executable: executable, executes: fields[1].contains("x"))
            } else if fields.first == "Rss:", fields.count >= 2, let size = Int(fields[1]) {
                kilobytes[part, default: 0] += size
            }
        }
    }

    /// A /proc file whole (its size reads as 0, so it is read to the end in chunks).
    private static func read(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var data = Data()
        while let chunk = try? handle.read(upToCount: 1 << 16), !chunk.isEmpty { data.append(chunk) }
        return data.isEmpty ? nil : String(decoding: data, as: UTF8.self)
    }

    private static func part(path: String, executable: String, executes: Bool) -> String {
        if path.isEmpty { return "anonymous" }
        if path.hasPrefix(executable) { return executes ? "program code" : "program data" }
        if path == "[heap]" { return "malloc heap" }
        if path.hasPrefix("/SYSV") { return "shared memory (MIT-SHM)" }
        if path.hasPrefix("/"), let range = path.range(of: ".so") {
            return String(path[..<range.lowerBound].split(separator: "/").last ?? "lib?")
        }
        if path == "[stack]" { return "main thread stack" }
        return "other"
    }

    /// A table of several maps side by side (columns titled `titles`), largest parts first;
    /// libraries below `detail` KiB in every column are summed into one row.
    static func table(_ maps: [ResidentMemoryMap], titles: [String], detail: Int = 256) -> [String] {
        let parts = Set(maps.flatMap(\.kilobytes.keys))
        let largest = { (part: String) in maps.map { $0.kilobytes[part] ?? 0 }.max() ?? 0 }
        let named = parts.filter { !$0.hasPrefix("lib") || largest($0) >= detail }.sorted { largest($0) > largest($1) }
        let small = parts.filter { $0.hasPrefix("lib") && largest($0) < detail }
        func row(_ title: String, _ values: [Int]) -> String {
            title.padding(toLength: 34, withPad: " ", startingAt: 0) + values.map { String(format: "%9.1f", Double($0) / 1024) }.joined()
        }
        var lines = [row("resident MiB by mapping", []) + titles.map { $0.leftPadding(to: 9) }.joined()]
        for part in named { lines.append(row("  " + part, maps.map { $0.kilobytes[part] ?? 0 })) }
        if !small.isEmpty {
            lines.append(row("  \(small.count) other libraries", maps.map { map in small.reduce(0) { $0 + (map.kilobytes[$1] ?? 0) } }))
        }
        lines.append(row("  total", maps.map(\.total)))
        return lines
    }
}

private extension String {
    func leftPadding(to width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
