/// The controller's side of one attempt at pairing by code, sans-IO: it takes what the host says
/// at the meeting point and says what to publish next, ending with the invite the ordinary pairing
/// uses — or why not.
public struct CodePairingRun: Sendable {
    public enum State: Sendable {
        /// Waiting for the host's announcement (its sid).
        case waitingForHost
        /// Our CPace message is out; waiting for the host's.
        case started(CPaceInitiator)
        /// Our confirmation is out; the invite is ready once the host says it paired.
        case confirmed(Invite)
        case paired(Invite)
        case failed(String)
    }

    public enum Step: Sendable {
        /// Publish this at our controller topic.
        case publish(PairingMeetingMessage)
        /// Nothing to do for this message (not for this state, or a repeat).
        case ignore
        case paired(Invite)
        case failed(String)
    }

    public private(set) var state: State = .waitingForHost
    private let code: PairingCode
    private let controllerAD: ControllerPairingAD

    public init(code: PairingCode, controllerAD: ControllerPairingAD) {
        self.code = code
        self.controllerAD = controllerAD
    }

    /// A message from the meeting point: the host's announcement, its answer, or its outcome.
    public mutating func receive(_ message: PairingMeetingMessage, group: any CPaceGroup, scalar: SecretBytes? = nil) -> Step {
        switch (state, message) {
        case (.waitingForHost, .announcement(let sid, _)):
            do {
                let initiator = try CPaceInitiator(prs: code.passwordBytes, ci: code.channelIdentifier, sid: sid, ad: controllerAD.bytes,
                                                   group: group, scalar: scalar)
                state = .started(initiator)
                return .publish(.start(initiator.message))
            } catch {
                return fail(error.message)
            }
        case (.started(let initiator), .answer(let answer)):
            do {
                let finished = try initiator.finish(answer, group: group)
                let keys = CodePairingKeys(key: finished.key, transcript: initiator.message + answer, group: group)
                let invite = try HostPairingAD(parsing: finished.peerAD).invite(keys: keys)
                state = .confirmed(invite)
                return .publish(.confirm(keys.confirmation))
            } catch let error as CPaceError {
                return fail(error.message)
            } catch {
                return fail("the host's answer is invalid: \(error)")
            }
        case (.confirmed(let invite), .outcome(.paired, _)):
            state = .paired(invite)
            return .paired(invite)
        case (.started, .outcome(let outcome, let reason)), (.confirmed, .outcome(let outcome, let reason)):
            switch outcome {
            case .paired: return fail("the host said it paired before the code was confirmed")
            case .wrongCode: return fail("the host did not accept this code: check it and try again (\(TerminalSafeText.sanitized(reason)))")
            case .refused: return fail("the host refused: \(TerminalSafeText.sanitized(reason))")
            }
        case (.waitingForHost, _), (.started, _), (.confirmed, _), (.paired, _), (.failed, _):
            return .ignore
        }
    }

    private mutating func fail(_ reason: String) -> Step {
        state = .failed(reason)
        return .failed(reason)
    }
}
