public import Foundation
public import ZRCProtocol

/// The controller's list of paired hosts and their pinned keys.
public actor KnownHostsStore {
    public nonisolated let file: URL

    public init(file: URL) {
        self.file = file
    }

    public func all() throws(StorageError) -> [KnownHost] {
        try load().hosts
    }

    public func host(named name: String) throws(StorageError) -> KnownHost {
        let hosts = try load().hosts
        guard let host = hosts.first(where: { $0.name == name }) else {
            let known = hosts.map(\.name).joined(separator: ", ")
            throw StorageError(.notFound, path: file.path,
                               reason: "no paired host named `\(name)`"
                                   + (known.isEmpty ? "; pair one with `zrc-ctl pair --name NAME`" : " (known: \(known))"))
        }
        return host
    }

    /// Stores a newly paired host. Re-pairing under an existing name replaces that entry: the user
    /// ran `pair` with a fresh invite from the host, which is how a changed host key is accepted.
    public func add(_ host: KnownHost) throws(StorageError) {
        try update { (document) throws(StorageError) in
            document.hosts.removeAll { $0.name == host.name }
            document.hosts.append(host)
        }
    }

    public func remove(named name: String) throws(StorageError) -> KnownHost {
        let file = file
        return try update { (document) throws(StorageError) in
            guard let index = document.hosts.firstIndex(where: { $0.name == name }) else {
                throw StorageError(.notFound, path: file.path, reason: "no paired host named `\(name)`")
            }
            return document.hosts.remove(at: index)
        }
    }

    /// Gives the host `name` the local name `newName` (the key and everything else stay).
    public func rename(named name: String, to newName: String) throws(StorageError) {
        let file = file
        if let problem = DeviceName.problem(with: newName) { throw StorageError(.invalid, path: file.path, field: "name", reason: problem) }
        try update { (document) throws(StorageError) in
            guard let index = document.hosts.firstIndex(where: { $0.name == name }) else {
                throw StorageError(.notFound, path: file.path, reason: "no paired host named `\(name)`")
            }
            guard newName == name || !document.hosts.contains(where: { $0.name == newName }) else {
                throw StorageError(.invalid, path: file.path, field: "name", reason: "another host is already paired as `\(newName)`")
            }
            document.hosts[index].name = newName
        }
    }

    /// Records a successful connection; `workingAddress` (host:port) moves to the front of the
    /// host's addresses (or joins them, e.g. found by LAN discovery after the host's address
    /// changed), so the next connection tries it first.
    public func markSeen(named name: String, at date: Date, workingAddress: String? = nil, path: KnownHostPath? = nil) throws(StorageError) {
        try update { (document) throws(StorageError) in
            guard let index = document.hosts.firstIndex(where: { $0.name == name }) else { return }
            document.hosts[index].lastSeen = date
            if let path { document.hosts[index].lastPath = path }
            if let workingAddress, HostPort(parsing: workingAddress) != nil {
                var addresses = document.hosts[index].addresses.filter { $0 != workingAddress }
                addresses.insert(workingAddress, at: 0)
                document.hosts[index].addresses = Array(addresses.prefix(WireLimits.maxInviteAddresses))
            }
        }
    }

    /// Keeps the host's newest relay credentials: a relay's new ones replace its old, and
    /// expired ones go.
    public func keepRelayCredentials(named name: String, _ credentials: [RelayCredential], nowUnixSeconds: UInt64) throws(StorageError) {
        try update { (document) throws(StorageError) in
            guard let index = document.hosts.firstIndex(where: { $0.name == name }) else { return }
            let fresh = Set(credentials.map(\.relay))
            let kept = document.hosts[index].relayCredentials.filter { !fresh.contains($0.relay) && $0.isUsable(atUnixSeconds: nowUnixSeconds, margin: 0) }
            document.hosts[index].relayCredentials = Array((credentials + kept).prefix(RelayCredential.maximumCount))
        }
    }

    private func load() throws(StorageError) -> KnownHostsDocument {
        try DocumentFile.load(KnownHostsDocument.self, from: file) ?? KnownHostsDocument()
    }

    /// A read-modify-write under the file's lock (see `DocumentFile.update`).
    private func update<Result>(_ change: (inout KnownHostsDocument) throws(StorageError) -> Result) throws(StorageError) -> Result {
        try DocumentFile.update(KnownHostsDocument.self, at: file, empty: KnownHostsDocument(), change)
    }
}
