import Foundation
import ZRCNetworking
import ZRCProtocol

/// The host's established sessions, so revocation and listings can reach them.
struct LiveSessions {
    struct Entry {
        let id: UInt64
        let controllerKey: NoisePublicKey
        let controllerName: String
        let connection: SecureConnection
        /// The path as the session's streamer measures it (nothing for sessions without a screen).
        let link: SessionLink
        let since: Date
        let viewOnly: Bool
        /// Whether the host's clipboard changes are sent to it (it may use the clipboard and
        /// asked for them).
        let receivesClipboard: Bool
    }

    private var entries: [UInt64: Entry] = [:]

    var count: Int { entries.count }

    var all: [Entry] { Array(entries.values) }

    mutating func add(_ entry: Entry) { entries[entry.id] = entry }

    mutating func remove(id: UInt64) { entries[id] = nil }

    func session(id: UInt64) -> Entry? { entries[id] }

    func sessions(of key: NoisePublicKey) -> [Entry] {
        entries.values.filter { $0.controllerKey == key }
    }
}
