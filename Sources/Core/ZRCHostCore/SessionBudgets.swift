public import ZRCProtocol

/// How much of the host's work one session's messages may cost: each kind that costs the host
/// work (injecting input on the shared X connection, clipboard conversions) or earns a reply (a
/// notice) has a token bucket, far above what hands and scripts produce.
public struct SessionBudgets: Sendable, Equatable {
    public static let inputPerSecond = 2000.0
    public static let clipboardPerSecond = 10.0
    public static let noticesPerSecond = 20.0

    public var input = RequestBudget(perSecond: inputPerSecond, burst: 2 * inputPerSecond)
    public var clipboard = RequestBudget(perSecond: clipboardPerSecond, burst: 2 * clipboardPerSecond)
    /// Notices are replies: a flood of messages that each earn one gets a bounded number.
    public var notices = RequestBudget(perSecond: noticesPerSecond, burst: 2 * noticesPerSecond)

    public init() {}
}
