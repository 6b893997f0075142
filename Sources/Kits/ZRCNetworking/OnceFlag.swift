import Synchronization

/// A flag set at most once from any task (e.g. "the handshake timer fired").
public final class OnceFlag: Sendable {
    private let value = Atomic<Bool>(false)

    public init() {}

    public func set() { value.store(true, ordering: .releasing) }

    public var isSet: Bool { value.load(ordering: .acquiring) }
}
