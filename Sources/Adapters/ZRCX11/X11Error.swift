/// The one error type of ZRCX11: a kind to switch on and a message a person can act on.
public struct X11Error: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// No connection to the X display: no server there, wrong authorization, malformed name,
        /// or DISPLAY unset. The message names the display.
        case cannotConnect
        /// The connection broke after it was established (server gone, I/O error).
        case connectionLost
        /// The screen's pixel layout is not one ZRC can capture as BGRX (it needs 32 bits per
        /// pixel, least significant byte first, red/green/blue in bits 16–23/8–15/0–7).
        case unsupportedScreen
        /// A capture rectangle that is empty, outside the screen, or does not fit the destination.
        case invalidRectangle
        /// The X server answered a request with an error.
        case requestFailed
        /// A MIT-SHM segment could not be created or attached. The capturer handles this itself by
        /// falling back to GetImage; it reaches callers only from lower-level calls.
        case sharedMemoryFailed
        /// The server lacks an extension the operation needs (XTEST for input, DAMAGE, XFIXES).
        /// The message names it.
        case extensionMissing
        /// Input the caller asked for that cannot be injected: a button outside 1…9, a coordinate
        /// outside X's 16-bit range, a control character in text, or a keysym for which no keycode
        /// could be found or bound.
        case invalidInput
        /// A `--monitor` name or index that names no monitor. The message lists the monitors.
        case noSuchMonitor
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "X11: \(message)" }
}
