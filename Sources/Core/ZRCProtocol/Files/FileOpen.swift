/// Controller → host (`fileOpen`, 0x53): start one file's upload or download.
///
/// Layout: requestID u32, direction u8 (0 upload, 1 download, 2 make directory), flags u8 (bit 0 replace an
/// existing file, bit 1 resume from a kept part), path string (`RemotePath` syntax), size u64
/// (upload: the file's size, ≤ the host's maxFileBytes; download: 0), mode u16 (upload: permission
/// bits, ≤ 0o7777; the receiver drops setuid, setgid and sticky), modifiedMicros i64 (upload: the
/// file's modification time, µs since 1970 UTC), offset u64 (download with resume: the bytes of
/// the part the controller holds; otherwise 0).
public struct FileOpen: Sendable, Equatable {
    public enum Direction: UInt8, Sendable, Equatable {
        case upload = 0
        case download = 1
        /// Create the directory at `path` (and missing parents beneath the root); answered with
        /// `fileDone` or `fileFailed`, no data. Needs the upload direction.
        case makeDirectory = 2
    }

    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// An existing target may be replaced (`--force`).
        public static let replace = Flags(rawValue: 1 << 0)
        /// Continue from the part a failed transfer left (`--resume`).
        public static let resume = Flags(rawValue: 1 << 1)
        static let known: Flags = [.replace, .resume]
    }

    public var requestID: UInt32
    public var direction: Direction
    public var flags: Flags
    public var path: String
    public var size: UInt64
    public var mode: UInt16
    public var modifiedMicros: Int64
    public var offset: UInt64

    public init(requestID: UInt32, direction: Direction, flags: Flags = [], path: String, size: UInt64 = 0, mode: UInt16 = 0o644,
                modifiedMicros: Int64 = 0, offset: UInt64 = 0) {
        self.requestID = requestID
        self.direction = direction
        self.flags = flags
        self.path = path
        self.size = size
        self.mode = mode
        self.modifiedMicros = modifiedMicros
        self.offset = offset
    }

    func problem() -> String? {
        if flags.rawValue & ~Flags.known.rawValue != 0 { return "unknown flag bits \(flags.rawValue)" }
        if mode > 0o7777 { return "mode \(String(mode, radix: 8)) is above 7777" }
        if path.utf8.count > FileTransferLimits.maxPathBytes { return "a path longer than \(FileTransferLimits.maxPathBytes) bytes" }
        return nil
    }

    func write(to writer: inout ByteWriter) {
        writer.write(requestID)
        writer.write(direction.rawValue)
        writer.write(flags.rawValue)
        writer.write(string: path)
        writer.write(size)
        writer.write(mode)
        writer.write(modifiedMicros)
        writer.write(offset)
    }

    init(from reader: inout ByteReader) throws(WireError) {
        requestID = try reader.readUInt32("requestID")
        let raw = try reader.readUInt8("direction")
        guard let direction = Direction(rawValue: raw) else { throw reader.invalid("direction", "is \(raw), must be 0…2") }
        self.direction = direction
        flags = Flags(rawValue: try reader.readUInt8("flags"))
        path = try reader.readString("path")
        size = try reader.readUInt64("size")
        mode = try reader.readUInt16("mode")
        modifiedMicros = try reader.read(Int64.self, "modifiedMicros")
        offset = try reader.readUInt64("offset")
    }
}

/// Host → controller (`fileReady`, 0x54): the file is open; data may flow.
///
/// Layout: requestID u32, size u64 (the file's size: the upload's as announced, the download's as
/// read), mode u16, modifiedMicros i64, offset u64 (where data starts: the part kept for a resumed
/// transfer, else 0), prefixDigest 32 bytes (BLAKE2b-256 of the bytes before `offset`; zeros when
/// it is 0). The side holding the other copy of the prefix checks it before going on.
public struct FileReady: Sendable, Equatable {
    public var requestID: UInt32
    public var size: UInt64
    public var mode: UInt16
    public var modifiedMicros: Int64
    public var offset: UInt64
    public var prefixDigest: [UInt8]

    public init(requestID: UInt32, size: UInt64, mode: UInt16, modifiedMicros: Int64, offset: UInt64 = 0,
                prefixDigest: [UInt8] = Array(repeating: 0, count: FileTransferLimits.digestBytes)) {
        self.requestID = requestID
        self.size = size
        self.mode = mode
        self.modifiedMicros = modifiedMicros
        self.offset = offset
        self.prefixDigest = prefixDigest
    }

    func problem() -> String? {
        if mode > 0o7777 { return "mode \(String(mode, radix: 8)) is above 7777" }
        if offset > size { return "offset \(offset) is beyond the size \(size)" }
        if prefixDigest.count != FileTransferLimits.digestBytes { return "a prefix digest of \(prefixDigest.count) bytes" }
        return nil
    }

    func write(to writer: inout ByteWriter) {
        writer.write(requestID)
        writer.write(size)
        writer.write(mode)
        writer.write(modifiedMicros)
        writer.write(offset)
        writer.write(bytes: prefixDigest)
    }

    init(from reader: inout ByteReader) throws(WireError) {
        requestID = try reader.readUInt32("requestID")
        size = try reader.readUInt64("size")
        mode = try reader.readUInt16("mode")
        modifiedMicros = try reader.read(Int64.self, "modifiedMicros")
        offset = try reader.readUInt64("offset")
        prefixDigest = try reader.readBytes(count: FileTransferLimits.digestBytes, "prefixDigest")
    }
}
