internal import CSodium

/// libsodium's one-time setup. `sodium_init` must run before any other call (it picks CPU-specific
/// implementations and opens the random source); a Swift `static let` is initialised exactly once,
/// thread-safely, on first use, which is the guarantee needed without a lock of our own.
enum SodiumLibrary {
    /// 0 = initialised now, 1 = already initialised (e.g. by another library), -1 = failure.
    static let isReady: Bool = sodium_init() >= 0
}
