import Synchronization
import ZRCNetworking
import ZRCProtocol

/// How a session's file client reaches its connection without holding the session (which holds
/// the client): attached while the connection is up, detached when it ends.
final class FileLink: Sendable {
    private let connection = Mutex<SecureConnection?>(nil)

    func attach(_ connection: SecureConnection?) { self.connection.withLock { $0 = connection } }

    /// False when the session is gone. Several messages go in one write.
    func send(_ messages: [ZRCMessage]) async -> Bool {
        guard let connection = connection.withLock({ $0 }) else { return false }
        return (try? await connection.sendAll(messages)) != nil
    }
}
