public import ZRCFiles
public import ZRCProtocol

/// What the host shares of its files (`fileTransfer` in host.json, `fileRoot`, `uploadDirectory`,
/// `maxFileBytes`): every remote path resolves beneath `root`; drops land in `uploadDirectory`.
public struct FileSharing: Sendable {
    public var root: ConfinedDirectory
    public var directions: FileTerms.Directions
    /// Beneath `root`.
    public var uploadDirectory: RemotePath
    public var maxFileBytes: UInt64

    public init(root: ConfinedDirectory, directions: FileTerms.Directions, uploadDirectory: RemotePath, maxFileBytes: UInt64) {
        self.root = root
        self.directions = directions
        self.uploadDirectory = uploadDirectory
        self.maxFileBytes = maxFileBytes
    }

    /// The terms a controlling session gets.
    public var terms: FileTerms {
        FileTerms(directions: directions, maxFileBytes: maxFileBytes, uploadDirectory: uploadDirectory.text, rootName: root.shownPath)
    }
}
