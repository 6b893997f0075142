public import Logging
import ZRCProtocol

/// Log lines go to the same terminal the user works in (`zrc-ctl view` even draws there), and
/// many carry peer words: close texts, names, addresses. Every message and metadata value passes
/// `TerminalSafeText` before the wrapped handler writes it.
public struct SanitizingLogHandler: LogHandler {
    private var wrapped: any LogHandler

    public init(wrapping handler: any LogHandler) {
        wrapped = handler
    }

    public var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    public var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = Self.sanitized(newValue) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue.map(Self.sanitized) }
    }

    public func log(event: LogEvent) {
        var event = event
        event.message = "\(TerminalSafeText.sanitized(event.message.description))"
        event.metadata = event.metadata.map(Self.sanitized)
        wrapped.log(event: event)
    }

    static func sanitized(_ metadata: Logger.Metadata) -> Logger.Metadata {
        metadata.mapValues(sanitized)
    }

    static func sanitized(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(TerminalSafeText.sanitized(text))
        case .stringConvertible(let convertible): .string(TerminalSafeText.sanitized(convertible.description))
        case .dictionary(let dictionary): .dictionary(sanitized(dictionary))
        case .array(let array): .array(array.map(sanitized))
        }
    }
}
