import Testing
import ZRCControllerKit
import ZRCNetworking
import ZRCProtocol
import ZRCViewerKit

@Suite struct ReconnectDecisionTests {
    static func retries(_ decision: ReconnectDecision) -> Bool { if case .retry = decision { true } else { false } }

    /// Refusals before the host is authenticated are unverified: every one is retried (once
    /// stopped for good by one of them, anyone on the path could end the viewer with a forged reject).
    @Test(arguments: [
        (ControllerError.Kind.unreachable, true), (.connectionLost, true), (.handshakeFailed, true), (.closedByHost, true),
        (.rejected(.refusedByPolicy), true), (.rejected(.replayedHandshake), true),
        (.rejected(.hostKeyMismatch), true), (.rejected(.notAuthorized), true), (.rejected(.malformed), true),
        (.rejected(.clockSkew), true), (.wrongPeer, true), (.storage, false),
    ])
    func failedConnections(_ kind: ControllerError.Kind, retry: Bool) {
        let decision = ReconnectDecision.after(ControllerError(kind, "the explanation"))
        #expect(Self.retries(decision) == retry)
        if !retry { #expect(decision == .stop("the explanation"), "the explanation reaches the user unchanged") }
    }

    @Test(arguments: [
        (ConnectionEnd.connectionLost, true), (.peerTimedOut, true), (.remote(reason: .shuttingDown, text: "bye"), true),
        (.remote(reason: .normal, text: "ended by the host"), true), (.remote(reason: .internalError, text: "capture failed"), true),
        (.remote(reason: .revoked, text: "revoked"), false), (.remote(reason: .replaced, text: ""), false),
        (.remote(reason: .versionMismatch, text: ""), false), (.local(reason: .normal, text: "detached"), false),
        (.local(reason: .timeout, text: "the peer stopped reading"), true), (.local(reason: .protocolError, text: "a frame did not decode"), true),
    ])
    func endedSessions(_ end: ConnectionEnd, retry: Bool) {
        #expect(Self.retries(ReconnectDecision.after(end)) == retry, "\(end)")
    }

    @Test(arguments: [HandshakeRejection.hostKeyMismatch, .notAuthorized, .malformed, .clockSkew])
    func unverifiedRefusalsAreShownAsSuchAndStopOnlyAfterALongStreak(_ reason: HandshakeRejection) {
        var policy = ReconnectPolicy()
        let error = ControllerError(.rejected(reason), "the explanation")
        for attempt in 1..<ReconnectPolicy.unverifiedStreakLimit {
            #expect(policy.after(error) == .retry(reason: "refused: \(reason.shortName) (unverified)"), "attempt \(attempt)")
        }
        guard case .stop(let text) = policy.after(error) else {
            Issue.record("a long streak stops")
            return
        }
        #expect(text.hasPrefix("the explanation") && text.contains("\(ReconnectPolicy.unverifiedStreakLimit) times in a row"))
    }

    @Test func anythingElseInBetweenStartsTheStreakAgain() {
        var policy = ReconnectPolicy()
        let forged = ControllerError(.rejected(.notAuthorized), "forged")
        for _ in 1..<ReconnectPolicy.unverifiedStreakLimit { _ = policy.after(forged) }
        _ = policy.after(ControllerError(.unreachable, "no answer"))
        #expect(policy.unverifiedStreak == 0)
        for _ in 1..<ReconnectPolicy.unverifiedStreakLimit { _ = policy.after(forged) }
        policy.succeeded()
        #expect(policy.after(forged) == .retry(reason: "refused: not authorized (unverified)"))
    }
}
