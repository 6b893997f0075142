import Foundation
import ZRCCommandSupport
import ZRCHostKit
import ZRCProtocol

/// `zrc-host pair --code`: asks the server for a code, shows it, and follows it until a controller
/// has paired or the code ended. Asking for its status every 250 ms is also what keeps the code
/// open: when this command stops (Ctrl+C, a closed terminal) the server withdraws it.
struct CodePairingCommand {
    let context: HostContext
    let lifetimeSeconds: Int
    let temporary: Bool
    let json: Bool

    struct CodeLine: Encodable {
        let code: String
        let expiresAt: Date
        let hostName: String
        let hostFingerprint: String
        let meetingPoints: [String]
        let temporary: Bool
    }

    struct EventLine: Encodable {
        let event: String
        let controllerName: OrNull<String>
        let controllerFingerprint: OrNull<String>
        let wrongTries: OrNull<Int>
        let reason: OrNull<String>
    }

    func run() async throws {
        guard case .code(let summary) = try await context.request(.createCode(lifetimeSeconds: lifetimeSeconds, temporary: temporary)) else {
            throw CommandError(.failure, "the server answered something other than a code")
        }
        let signals = CommandRunner.onTerminationSignal { [context] _ in
            // Withdrawn at once rather than when the server notices nobody looks any more.
            Task {
                _ = try? await context.request(.cancelCode(locator: summary.locator))
                exit(130)
            }
        }
        defer { signals.forEach { $0.cancel() } }
        if json {
            try JSONOutput.line(CodeLine(code: summary.code, expiresAt: summary.expiresAt, hostName: summary.hostName,
                                         hostFingerprint: summary.hostFingerprint, meetingPoints: summary.meetingPoints, temporary: temporary))
        } else {
            let expiry = summary.expiresAt.formatted(date: .omitted, time: .standard)
            Console.line("""
                Pairing code for \(summary.hostName) — valid once, until \(expiry):

                    \(summary.code)

                On the controller, run `zrc-ctl pair --code` and type it at the prompt.
                Host key fingerprint: \(summary.hostFingerprint)
                Found at: \(summary.meetingPoints.joined(separator: ", "))\(temporary ? "\nThe controller will be authorized for one session only." : "")
                Waiting for the controller (Ctrl+C withdraws the code)…
                """)
        }
        var lastWrong = 0
        var provenShown = false
        while true {
            try? await Task.sleep(for: .milliseconds(250))
            guard case .codeStatus(let status) = try await context.request(.codeStatus(locator: summary.locator)) else {
                throw CommandError(.failure, "the server answered something other than the code's status")
            }
            switch status {
            case .waiting(let wrong):
                if wrong > lastWrong {
                    lastWrong = wrong
                    try say("wrongCode", wrongTries: wrong,
                            text: "Someone tried a wrong code (\(wrong) of \(CodePairingGate.maximumGuesses)); after \(CodePairingGate.maximumGuesses) the code ends.")
                }
            case .proven(let name, let fingerprint):
                if !provenShown {
                    provenShown = true
                    try say("proven", name: name, fingerprint: fingerprint,
                            text: "`\(name)` proved the code; completing the pairing…")
                }
            case .paired(let name, let fingerprint):
                try say("paired", name: name, fingerprint: fingerprint, text: """
                    Paired with controller `\(name)`\(temporary ? " for one session" : "").
                    Controller key fingerprint: \(fingerprint) — it should match what `zrc-ctl pair --code` showed.
                    """)
                return
            case .ended(let reason):
                try say("ended", reason: reason, text: "The code ended: \(reason).")
                throw CommandError(.failure, "no controller paired: \(reason)")
            }
        }
    }

    private func say(_ event: String, name: String? = nil, fingerprint: String? = nil, wrongTries: Int? = nil, reason: String? = nil,
                     text: String) throws {
        if json {
            try JSONOutput.line(EventLine(event: event, controllerName: OrNull(name), controllerFingerprint: OrNull(fingerprint),
                                          wrongTries: OrNull(wrongTries), reason: OrNull(reason)))
        } else {
            Console.line(text)
        }
    }
}
