/// Which identity a key belongs to. A machine can be a host and a controller at once, with a
/// separate key for each role, so the role is part of every key's identity in a store.
public enum KeyRole: String, Sendable, CaseIterable {
    case host
    case controller
}
