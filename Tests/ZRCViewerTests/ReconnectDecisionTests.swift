import Testing
import ZRCControllerKit
import ZRCNetworking
import ZRCProtocol
import ZRCViewerKit

@Suite struct ReconnectDecisionTests {
    static func retries(_ decision: ReconnectDecision) -> Bool { if case .retry = decision { true } else { false } }

    @Test(arguments: [
        (ControllerError.Kind.unreachable, true), (.connectionLost, true), (.handshakeFailed, true), (.closedByHost, true),
        (.rejected(.refusedByPolicy), true), (.rejected(.replayedHandshake), true),
        (.rejected(.hostKeyMismatch), false), (.rejected(.notAuthorized), false), (.wrongPeer, false), (.storage, false),
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
}
