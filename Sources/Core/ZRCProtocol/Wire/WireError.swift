/// Everything that can be wrong with bytes on the wire or with an invite a user pasted.
///
/// One error type for the whole wire layer, so callers switch on `kind` to pick a recovery (close the
/// connection, tell the user to upgrade, ask for the invite again) and show `message` to a person.
/// Peer-controlled input only ever produces this error, never a trap.
public struct WireError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        // Structure of a value inside a record, message or payload.
        /// The bytes end before the announced or required data.
        case truncated
        /// Bytes remain after a complete value; a peer that appends data speaks another format.
        case trailingBytes
        /// A string is not valid UTF-8.
        case invalidUTF8
        /// A length (string, blob, message) is above its documented limit.
        case lengthTooLarge
        /// A field holds a value outside its documented range (bad bool, button 9, rect off screen, …).
        case invalidValue

        // Connection preamble.
        /// The other end is not a ZRC peer (an HTTP, SSH or TLS server, or something else).
        case notZRCPeer
        /// Both ends are ZRC but speak different protocol major versions.
        case protocolVersionMismatch

        // Records and fragmentation.
        case unknownRecordType
        /// A record header announces an empty body, which no record type allows.
        case emptyRecord
        /// A fragment arrived out of sequence (continuation without start, new start mid-message,
        /// more bytes than announced, last fragment with bytes missing, unknown flag bits).
        case fragmentSequence

        // Application messages and handshake payloads.
        case unknownMessageType

        // Invites.
        /// The text is not a ZRC invite at all (wrong prefix).
        case notAnInvite
        /// The invite was made by a newer (or unknown) ZRC version.
        case unknownInviteVersion
        /// The invite has a typo or was altered: bad character or checksum mismatch.
        case damagedInvite
        /// The invite is missing its end, typically a copy that stopped short.
        case truncatedInvite
    }

    public let kind: Kind
    /// What is wrong and, where it helps, what to do about it.
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
