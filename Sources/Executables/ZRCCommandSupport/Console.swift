import Foundation
public import Logging
import ZRCProtocol

/// Output conventions of both executables: results on stdout, diagnostics on stderr. Everything
/// goes through `TerminalSafeText` (line breaks kept): listings and messages carry names,
/// addresses and texts that came from peers or files.
public enum Console {
    /// A line on stdout, written at once (unbuffered), so scripts and tests see it immediately.
    public static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((TerminalSafeText.sanitized(text, keepingLineBreaks: true) + "\n").utf8))
    }

    public static func warn(_ text: String) {
        FileHandle.standardError.write(Data((TerminalSafeText.sanitized(text, keepingLineBreaks: true) + "\n").utf8))
    }

    /// A prompt on stderr, without a line break (stdout stays for results).
    public static func prompt(_ text: String) {
        FileHandle.standardError.write(Data(TerminalSafeText.sanitized(text).utf8))
    }

    /// Logging to stderr at `level`, sanitized; called once at start.
    public static func bootstrapLogging(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = SanitizingLogHandler(wrapping: StreamLogHandler.standardError(label: label))
            handler.logLevel = level
            return handler
        }
    }

    /// Prints `error` as `program: error: message` and returns its exit code.
    public static func report(_ error: any Error, program: String) -> Int32 {
        let (message, code): (String, Int32) =
            if let error = error as? CommandError { (error.message, error.kind.rawValue) } else { ("\(error)", 1) }
        warn("\(program): error: \(message)")
        return code
    }
}
