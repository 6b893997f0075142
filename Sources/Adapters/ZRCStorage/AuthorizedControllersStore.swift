public import Foundation
public import ZRCProtocol

/// The host's list of controllers allowed to open sessions.
///
/// Every operation reads the file afresh and writes it back atomically, so a hand edit or another
/// ZRC process is never overwritten with a stale copy, and a damaged file stops the operation with
/// a message instead of being replaced.
public actor AuthorizedControllersStore {
    public nonisolated let file: URL
    /// How far behind the newest accepted timestamp a handshake may be: two commands of one
    /// controller started together reach the host in either order. Within the window each
    /// timestamp is accepted once; before it, never.
    public static let replayWindowMicros: UInt64 = 10_000_000
    private var recentlyAccepted: [NoisePublicKey: Set<UInt64>] = [:]

    public init(file: URL) {
        self.file = file
    }

    public func all() throws(StorageError) -> [AuthorizedController] {
        try load().controllers
    }

    public func controller(withKey publicKey: NoisePublicKey) throws(StorageError) -> AuthorizedController? {
        try load().controllers.first { $0.publicKey == publicKey }
    }

    /// Adds a controller after it proved the invite secret. A key that is already authorized keeps
    /// its entry (re-pairing the same controller is not an error); a name already taken by another
    /// key gets a numeric suffix so both stay addressable.
    @discardableResult
    public func authorize(name: String, publicKey: NoisePublicKey, at date: Date, temporary: Bool = false) throws(StorageError)
        -> AuthorizedController {
        let (controller, isNew) = try update { (document) throws(StorageError) in
            if let index = document.controllers.firstIndex(where: { $0.publicKey == publicKey }) {
                document.controllers[index].lastSeen = date
                // A lasting pairing stays lasting; a temporary one becomes lasting when paired so.
                if !temporary { document.controllers[index].temporary = false }
                return (document.controllers[index], false)
            }
            let taken = Set(document.controllers.map(\.name))
            var unique = name
            var suffix = 2
            while taken.contains(unique) {
                unique = "\(name.prefix(60))-\(suffix)"
                suffix += 1
            }
            let controller = AuthorizedController(name: unique, publicKey: publicKey, pairedAt: date, temporary: temporary)
            document.controllers.append(controller)
            return (controller, true)
        }
        // A key paired anew starts with a fresh replay history (its file entry starts at 0 too).
        if isNew { recentlyAccepted[publicKey] = nil }
        return controller
    }

    /// Removes a controller by its name.
    public func revoke(name: String) throws(StorageError) -> AuthorizedController {
        let file = file
        let removed = try update { (document) throws(StorageError) in
            guard let index = document.controllers.firstIndex(where: { $0.name == name }) else {
                let known = document.controllers.map(\.name).joined(separator: ", ")
                throw StorageError(.notFound, path: file.path,
                                   reason: "no controller named `\(name)`" + (known.isEmpty ? "" : " (known: \(known))"))
            }
            return document.controllers.remove(at: index)
        }
        recentlyAccepted[removed.publicKey] = nil
        return removed
    }

    /// Removes the controllers authorized for one session (`temporary`): those of `keys`, or all
    /// of them. Returns what it removed.
    @discardableResult
    public func removeTemporary(keys: Set<NoisePublicKey>? = nil) throws(StorageError) -> [AuthorizedController] {
        let removed = try update { (document) throws(StorageError) in
            let gone = document.controllers.filter { $0.temporary && (keys?.contains($0.publicKey) ?? true) }
            document.controllers.removeAll { $0.temporary && (keys?.contains($0.publicKey) ?? true) }
            return gone
        }
        for controller in removed { recentlyAccepted[controller.publicKey] = nil }
        return removed
    }

    /// Accepts a handshake timestamp only once, and only if it is newer than the controller's newest
    /// accepted one or within `replayWindowMicros` behind it (replay protection for the first
    /// handshake message), and persists the newest. Returns false for a replay; nothing is written
    /// then. (The host also bounds the timestamp against its own clock before asking.)
    public func recordHandshake(publicKey: NoisePublicKey, timestampMicros: UInt64) throws(StorageError) -> Bool {
        // The window needs the in-memory record of what it accepted; without one (after a restart)
        // only strictly newer timestamps are safe.
        let history = recentlyAccepted[publicKey]
        let window = Self.replayWindowMicros
        let seen = try update { (document) throws(StorageError) -> Set<UInt64>? in
            guard let index = document.controllers.firstIndex(where: { $0.publicKey == publicKey }) else { return nil }
            let newest = document.controllers[index].lastHandshakeMicros
            guard timestampMicros > newest
                || (history.map { newest - timestampMicros < window && !$0.contains(timestampMicros) } ?? false)
            else { return nil }
            // Only what is inside the window needs remembering; the persisted high-water mark
            // covers the rest. Written so that no remembered value can make the subtraction wrap.
            let highWater = max(newest, timestampMicros)
            var seen = (history ?? []).filter { $0 <= highWater && highWater - $0 < window }
            seen.insert(timestampMicros)
            document.controllers[index].lastHandshakeMicros = highWater
            return seen
        }
        // Remembered only once it is on disk: a failed save must not leave memory ahead of the file.
        guard let seen else { return false }
        recentlyAccepted[publicKey] = seen
        return true
    }

    /// Records that the controller was seen (its session's first authenticated message arrived).
    public func markSeen(publicKey: NoisePublicKey, at date: Date) throws(StorageError) {
        try update { (document) throws(StorageError) in
            guard let index = document.controllers.firstIndex(where: { $0.publicKey == publicKey }) else { return }
            document.controllers[index].lastSeen = date
        }
    }

    private func load() throws(StorageError) -> AuthorizedControllersDocument {
        try DocumentFile.load(AuthorizedControllersDocument.self, from: file) ?? AuthorizedControllersDocument()
    }

    /// A read-modify-write under the file's lock (see `DocumentFile.update`).
    private func update<Result>(_ change: (inout AuthorizedControllersDocument) throws(StorageError) -> Result) throws(StorageError) -> Result {
        try DocumentFile.update(AuthorizedControllersDocument.self, at: file, empty: AuthorizedControllersDocument(), change)
    }
}
