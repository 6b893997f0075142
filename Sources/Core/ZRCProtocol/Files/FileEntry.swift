/// One entry of a listing (`fileEntries`). The name travels as bytes: a host lists what its
/// directory holds, and a name that is not valid (`FileName`) is shown escaped and never copied.
///
/// Layout: name u8 length + bytes (1…255), kind u8 (0 file, 1 directory, 2 symbolic link, 3
/// other), size u64, mode u16 (permission bits, ≤ 0o7777), modifiedMicros i64 (µs since 1970 UTC).
public struct FileEntry: Sendable, Equatable {
    public enum Kind: UInt8, Sendable, Equatable, CaseIterable, CustomStringConvertible {
        case file = 0
        case directory = 1
        case symbolicLink = 2
        case other = 3

        public var description: String {
            switch self {
            case .file: "file"
            case .directory: "directory"
            case .symbolicLink: "symlink"
            case .other: "other"
            }
        }
    }

    public var name: [UInt8]
    public var kind: Kind
    public var size: UInt64
    public var mode: UInt16
    public var modifiedMicros: Int64

    public init(name: [UInt8], kind: Kind, size: UInt64, mode: UInt16, modifiedMicros: Int64) {
        self.name = name
        self.kind = kind
        self.size = size
        self.mode = mode
        self.modifiedMicros = modifiedMicros
    }

    /// The name when it is valid, or why not (its bytes escaped).
    public var validName: Result<FileName, FileNameProblem> {
        Result { () throws(FileNameProblem) in try FileName(validating: name) }
    }

    /// The name for showing: the valid name, or its bytes escaped.
    public var shownName: String {
        (try? FileName(validating: name))?.text ?? FileName.escaped(name)
    }

    func problem() -> String? {
        if name.isEmpty || name.count > FileTransferLimits.maxNameBytes { return "an entry name of \(name.count) bytes" }
        if mode > 0o7777 { return "mode \(String(mode, radix: 8)) is above 7777" }
        return nil
    }

    func write(to writer: inout ByteWriter) {
        writer.write(UInt8(name.count))
        writer.write(bytes: name)
        writer.write(kind.rawValue)
        writer.write(size)
        writer.write(mode)
        writer.write(modifiedMicros)
    }

    init(from reader: inout ByteReader) throws(WireError) {
        let length = Int(try reader.readUInt8("name length"))
        name = try reader.readBytes(count: length, "name")
        let raw = try reader.readUInt8("kind")
        guard let kind = Kind(rawValue: raw) else { throw reader.invalid("kind", "is \(raw), must be 0…3") }
        self.kind = kind
        size = try reader.readUInt64("size")
        mode = try reader.readUInt16("mode")
        modifiedMicros = try reader.read(Int64.self, "modifiedMicros")
    }

    static func write(_ entries: [FileEntry], to writer: inout ByteWriter) {
        writer.write(UInt16(entries.count))
        for entry in entries { entry.write(to: &writer) }
    }

    /// At most `maxEntriesPerMessage`: the count is checked before any entry is read.
    static func read(from reader: inout ByteReader) throws(WireError) -> [FileEntry] {
        let count = Int(try reader.readUInt16("entry count"))
        guard count <= FileTransferLimits.maxEntriesPerMessage else {
            throw WireError(.lengthTooLarge, "\(reader.context): \(count) entries, limit is \(FileTransferLimits.maxEntriesPerMessage)")
        }
        var entries: [FileEntry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count { entries.append(try FileEntry(from: &reader)) }
        return entries
    }
}
