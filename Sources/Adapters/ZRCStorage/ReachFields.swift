import ZRCProtocol

extension KeyedDecodingContainer {
    /// A list of server URLs of one scheme (`rendezvousUrls`, `relayUrls`, `stunUrls`): at most
    /// eight, each one parsed, so a typo is reported when the file is read, naming the entry.
    /// `relayCredentialsRequired`: configuration files must give each relay its credentials; a
    /// paired host's relays (from its invite) come without.
    func decodeReachURLs(forKey key: Key, scheme: ReachURL.Scheme, relayCredentialsRequired: Bool = true) throws -> [String] {
        guard let texts = try decodeIfPresent([String].self, forKey: key) else { return [] }
        guard texts.count <= ReachFields.maxURLs else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "at most \(ReachFields.maxURLs) servers")
        }
        for (index, text) in texts.enumerated() {
            do {
                let url = try ReachURL(parsing: text, expecting: [scheme])
                if relayCredentialsRequired { _ = try url.requiringRelayCredentials() }
                _ = try url.requiringProtectedLogin()
            } catch {
                throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "entry \(index): \(error.message)")
            }
        }
        return texts
    }

    func decodeTransportPreference(forKey key: Key) throws -> TransportPreference? {
        try decodeChoice(TransportPreference.self, forKey: key)
    }
}

public enum ReachFields {
    public static let maxURLs = 8
}
