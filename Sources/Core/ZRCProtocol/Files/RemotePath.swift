/// A path beneath a transfer root: zero or more valid names (`FileName`), never absolute, never
/// `..`, `.` or an empty component, at most `maxPathBytes` long and `maxDepth` deep. The empty
/// path is the root itself. This is the syntax check; the host's file system adapter also refuses
/// a symbolic link that leads out of the root while it resolves the path.
public struct RemotePath: Sendable, Hashable, CustomStringConvertible {
    public let components: [FileName]

    public init(components: [FileName]) {
        self.components = components
    }

    public static let root = RemotePath(components: [])

    /// Parses `text` as a peer or a user sent it. Leading or doubled `/` and `.` components are
    /// refused, not cleaned up: a peer that sends them is either confused or probing. A trailing
    /// `/` is allowed (a directory named the usual way).
    public init(parsing text: String) throws(RemotePathProblem) {
        let bytes = Array(text.utf8)
        guard bytes.count <= FileTransferLimits.maxPathBytes else {
            throw RemotePathProblem(path: text, "longer than \(FileTransferLimits.maxPathBytes) bytes")
        }
        if bytes.first == UInt8(ascii: "/") { throw RemotePathProblem(path: text, "an absolute path; paths are relative to the transfer root") }
        var parts = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        if parts.count > 1, parts.last?.isEmpty == true { parts.removeLast() }
        if parts.count == 1, parts[0].isEmpty { parts = [] }
        guard parts.count <= FileTransferLimits.maxDepth else {
            throw RemotePathProblem(path: text, "deeper than \(FileTransferLimits.maxDepth) components")
        }
        var names: [FileName] = []
        for part in parts {
            if part.elementsEqual("..".utf8) { throw RemotePathProblem(path: text, "holds `..`; paths stay beneath the transfer root") }
            if part.isEmpty { throw RemotePathProblem(path: text, "holds an empty component (`//`)") }
            do {
                names.append(try FileName(validating: part))
            } catch {
                throw RemotePathProblem(path: text, error.description)
            }
        }
        components = names
    }

    public var text: String { components.map(\.text).joined(separator: "/") }
    public var description: String { components.isEmpty ? "/" : text }
    public var name: FileName? { components.last }
    public var parent: RemotePath { RemotePath(components: Array(components.dropLast())) }

    public func appending(_ name: FileName) -> RemotePath { RemotePath(components: components + [name]) }
}

public struct RemotePathProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let problem: String

    public init(path: String, _ problem: String) {
        self.path = path
        self.problem = problem
    }

    public var description: String { "`\(TerminalSafeText.sanitized(path))`: \(problem)" }
}
