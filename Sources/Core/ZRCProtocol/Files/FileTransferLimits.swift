/// The fixed limits of file transfer (protocol version 1), in one place so the spec
/// (Schemas/wire-protocol.md), both sides' checks and the tests cannot drift apart. A host may
/// announce lower values in its `fileTerms`; nothing a peer announces may exceed these.
public enum FileTransferLimits {
    /// Largest `fileData` payload: small, so a frame or an input event never waits long behind a
    /// chunk on a slow link (16 KiB cross a 10 Mbit/s link in 13 ms).
    public static let maxChunkBytes = 16 * 1024
    /// Longest remote path, in UTF-8 bytes (Linux's PATH_MAX).
    public static let maxPathBytes = 4096
    /// Longest name of one entry, in bytes (Linux's NAME_MAX).
    public static let maxNameBytes = 255
    /// Deepest remote path, in components, and deepest tree a recursive copy walks.
    public static let maxDepth = 32
    /// Entries in one `fileEntries` message.
    public static let maxEntriesPerMessage = 256
    /// Entries of one listing in all: a directory with more is refused (`limit`), so a hostile
    /// host announcing a million entries costs the controller at most this many.
    public static let maxEntriesPerListing = 65_536
    /// Transfers and listings open at once in one session.
    public static let maxOpenRequests = 16
    /// Largest file either side accepts unless configured lower: 2^44 bytes (16 TiB, ext4's limit).
    /// A size above it is refused before anything is allocated or created.
    public static let maxFileBytes: UInt64 = 1 << 44
    /// BLAKE2b digest length used for files and resumed parts.
    public static let digestBytes = 32
}
