import Glibc
import ZRCSystem

/// The controlling terminal on standard input and output: raw mode, its size. `restore()` puts
/// back the settings `enterRawMode()` found, and is safe to call any number of times.
///
/// Not Sendable on purpose: one owner (the viewer) switches modes; reading and writing go through
/// `TerminalReader` and `TerminalWriter`, which only use the file descriptors.
public final class TerminalDevice {
    public let inputDescriptor: Int32
    public let outputDescriptor: Int32
    private var saved: termios?

    /// Checks that both descriptors are terminals.
    public init(input: Int32 = 0, output: Int32 = 1) throws(TerminalError) {
        guard isatty(input) == 1 else {
            throw TerminalError(.notATerminal, "standard input is not a terminal: run `zrc-ctl view` in a terminal (use `zrc-ctl screenshot` or `zrc-ctl input` in scripts)")
        }
        guard isatty(output) == 1 else {
            throw TerminalError(.notATerminal, "standard output is not a terminal: run `zrc-ctl view` in a terminal, without redirecting its output")
        }
        inputDescriptor = input
        outputDescriptor = output
    }

    deinit { restore() }

    /// Raw mode: no echo, no line editing, no signals from Ctrl-C/Ctrl-Z (those keys go to the
    /// remote screen), bytes delivered as they arrive.
    public func enterRawMode() throws(TerminalError) {
        var settings = termios()
        guard tcgetattr(inputDescriptor, &settings) == 0 else { throw Self.failure("tcgetattr") }
        if saved == nil { saved = settings }
        cfmakeraw(&settings)
        settings.c_cc.6 = 1  // VMIN
        settings.c_cc.5 = 0  // VTIME
        guard tcsetattr(inputDescriptor, TCSAFLUSH, &settings) == 0 else { throw Self.failure("tcsetattr") }
    }

    /// The settings found before raw mode; a no-op when raw mode was never entered.
    public func restore() {
        guard var settings = saved else { return }
        _ = tcsetattr(inputDescriptor, TCSAFLUSH, &settings)
        saved = nil
    }

    /// The size in cells, and in pixels where the terminal reports it (0 otherwise).
    public func size() throws(TerminalError) -> TerminalSize {
        var size = winsize()
        guard ioctl(outputDescriptor, UInt(TIOCGWINSZ), &size) == 0 else { throw Self.failure("ioctl(TIOCGWINSZ)") }
        return TerminalSize(columns: Int(size.ws_col), rows: Int(size.ws_row), pixelWidth: Int(size.ws_xpixel),
                            pixelHeight: Int(size.ws_ypixel))
    }

    static func failure(_ call: String) -> TerminalError {
        let code = errno
        let kind: TerminalError.Kind = code == EIO || code == ENXIO || code == EBADF ? .closed : .systemCall
        return TerminalError(kind, "the terminal call \(call) failed: \(SystemCall.describe(code))")
    }
}

/// A terminal's size: cells always, pixels when the terminal reports them (else 0).
public struct TerminalSize: Sendable, Equatable {
    public var columns: Int
    public var rows: Int
    public var pixelWidth: Int
    public var pixelHeight: Int

    public init(columns: Int, rows: Int, pixelWidth: Int, pixelHeight: Int) {
        self.columns = columns
        self.rows = rows
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
    }
}
