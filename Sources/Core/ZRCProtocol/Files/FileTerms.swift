/// Host → controller (`fileTerms`, 0x50), after the host's hello when it announced `fileTransfer`:
/// what this session may do and the limits the host holds it to.
///
/// Layout: directions u8 (bit 0 upload, bit 1 download; 0 for a session that may not transfer),
/// maxChunkBytes u32 (1…16384), maxFileBytes u64 (≤ 2^44), maxPathBytes u16 (≤ 4096), maxDepth u8
/// (≤ 32), maxEntries u32 (≤ 65536), maxOpenRequests u8 (1…16), uploadDirectory string (relative
/// to the root, `RemotePath` syntax; empty: the root), rootName string (for people: where the
/// root is on the host, e.g. `/home/alice`).
public struct FileTerms: Sendable, Equatable {
    public struct Directions: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let upload = Directions(rawValue: 1 << 0)
        public static let download = Directions(rawValue: 1 << 1)
        public static let both: Directions = [.upload, .download]
    }

    public var directions: Directions
    public var maxChunkBytes: UInt32
    public var maxFileBytes: UInt64
    public var maxPathBytes: UInt16
    public var maxDepth: UInt8
    public var maxEntries: UInt32
    public var maxOpenRequests: UInt8
    public var uploadDirectory: String
    public var rootName: String

    public init(directions: Directions, maxChunkBytes: UInt32 = UInt32(FileTransferLimits.maxChunkBytes),
                maxFileBytes: UInt64 = FileTransferLimits.maxFileBytes, maxPathBytes: UInt16 = UInt16(FileTransferLimits.maxPathBytes),
                maxDepth: UInt8 = UInt8(FileTransferLimits.maxDepth), maxEntries: UInt32 = UInt32(FileTransferLimits.maxEntriesPerListing),
                maxOpenRequests: UInt8 = UInt8(FileTransferLimits.maxOpenRequests), uploadDirectory: String, rootName: String) {
        self.directions = directions
        self.maxChunkBytes = maxChunkBytes
        self.maxFileBytes = maxFileBytes
        self.maxPathBytes = maxPathBytes
        self.maxDepth = maxDepth
        self.maxEntries = maxEntries
        self.maxOpenRequests = maxOpenRequests
        self.uploadDirectory = uploadDirectory
        self.rootName = rootName
    }

    func problem() -> String? {
        if directions.rawValue & ~Directions.both.rawValue != 0 { return "unknown direction bits \(directions.rawValue)" }
        if !(1...UInt32(FileTransferLimits.maxChunkBytes)).contains(maxChunkBytes) { return "maxChunkBytes \(maxChunkBytes) is not 1…\(FileTransferLimits.maxChunkBytes)" }
        if maxFileBytes > FileTransferLimits.maxFileBytes { return "maxFileBytes \(maxFileBytes) is above 2^44" }
        if maxPathBytes > UInt16(FileTransferLimits.maxPathBytes) { return "maxPathBytes \(maxPathBytes) is above \(FileTransferLimits.maxPathBytes)" }
        if maxDepth > UInt8(FileTransferLimits.maxDepth) { return "maxDepth \(maxDepth) is above \(FileTransferLimits.maxDepth)" }
        if maxEntries > UInt32(FileTransferLimits.maxEntriesPerListing) { return "maxEntries \(maxEntries) is above \(FileTransferLimits.maxEntriesPerListing)" }
        if !(1...UInt8(FileTransferLimits.maxOpenRequests)).contains(maxOpenRequests) { return "maxOpenRequests \(maxOpenRequests) is not 1…\(FileTransferLimits.maxOpenRequests)" }
        if (try? RemotePath(parsing: uploadDirectory)) == nil { return "uploadDirectory is not a path beneath the root" }
        return nil
    }

    func write(to writer: inout ByteWriter) {
        writer.write(directions.rawValue)
        writer.write(maxChunkBytes)
        writer.write(maxFileBytes)
        writer.write(maxPathBytes)
        writer.write(maxDepth)
        writer.write(maxEntries)
        writer.write(maxOpenRequests)
        writer.write(string: uploadDirectory)
        writer.write(string: rootName)
    }

    init(from reader: inout ByteReader) throws(WireError) {
        directions = Directions(rawValue: try reader.readUInt8("directions"))
        maxChunkBytes = try reader.readUInt32("maxChunkBytes")
        maxFileBytes = try reader.readUInt64("maxFileBytes")
        maxPathBytes = try reader.readUInt16("maxPathBytes")
        maxDepth = try reader.readUInt8("maxDepth")
        maxEntries = try reader.readUInt32("maxEntries")
        maxOpenRequests = try reader.readUInt8("maxOpenRequests")
        uploadDirectory = try reader.readString("uploadDirectory")
        rootName = try reader.readString("rootName")
    }
}
