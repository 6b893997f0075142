/// One component of a path, as bytes: what both sides accept as a name to create or send.
///
/// A name must be valid UTF-8, 1…255 bytes, neither `.` nor `..`, without `/` or NUL, and every
/// character plainly visible (no control characters — an escape sequence in a name would act in
/// the terminal that lists it — and no format characters such as bidirectional overrides, which
/// make one name look like another). A refused name is shown with its bytes escaped.
public struct FileName: Sendable, Hashable, CustomStringConvertible {
    public let text: String

    public init(validating bytes: some Collection<UInt8>) throws(FileNameProblem) {
        guard !bytes.isEmpty else { throw FileNameProblem(name: Array(bytes), "an empty name") }
        guard bytes.count <= FileTransferLimits.maxNameBytes else {
            throw FileNameProblem(name: Array(bytes), "a name longer than \(FileTransferLimits.maxNameBytes) bytes")
        }
        guard !bytes.contains(UInt8(ascii: "/")), !bytes.contains(0) else {
            throw FileNameProblem(name: Array(bytes), "a name holding `/` or NUL")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw FileNameProblem(name: Array(bytes), "a name that is not valid UTF-8")
        }
        guard text != ".", text != ".." else { throw FileNameProblem(name: Array(bytes), "the name `\(text)`") }
        guard TerminalSafeText.isSafe(text) else {
            throw FileNameProblem(name: Array(bytes), "a name holding control or invisible characters")
        }
        self.text = text
    }

    public init(validating text: String) throws(FileNameProblem) {
        try self.init(validating: Array(text.utf8))
    }

    public var description: String { text }

    /// `bytes` as printable ASCII: printable ASCII stays (but `\`), everything else is `\xNN`.
    public static func escaped(_ bytes: some Collection<UInt8>) -> String {
        var result = ""
        for byte in bytes {
            if byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += "\\x" + Hex.encode([byte]).uppercased()
            }
        }
        return result
    }
}

/// Why a name was refused, with the name's bytes escaped for showing.
public struct FileNameProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public let name: [UInt8]
    public let problem: String

    public init(name: [UInt8], _ problem: String) {
        self.name = name
        self.problem = problem
    }

    public var description: String { "`\(FileName.escaped(name))`: \(problem)" }
}
