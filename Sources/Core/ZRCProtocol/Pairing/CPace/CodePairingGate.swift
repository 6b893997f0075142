/// The host's side of pairing by code, sans-IO: one code, the CPace runs controllers start with
/// it, and the limit of three guesses.
///
/// A run counts as a wrong guess from the moment the host answers it, and stops counting only
/// when the controller's confirmation proves it knew the code. So however many runs an attacker
/// starts at once or leaves unfinished, at most three are ever answered; after the third wrong
/// one the code ends. A code pairs once, and ends at its expiry.
public struct CodePairingGate: Sendable {
    public static let maximumGuesses = 3

    public enum Ending: Sendable, Equatable {
        case expired
        case tooManyWrongCodes
    }

    public enum State: Sendable {
        /// Open; `counted` runs are answered and not confirmed (wrong or still unfinished).
        case waiting(counted: Int)
        /// A controller proved the code: its CPace AD (key and name), and the keys for the pairing.
        case paired(controllerAD: [UInt8], keys: CodePairingKeys)
        case ended(Ending)
    }

    public enum Answer: Sendable {
        /// The host's CPace message for the controller.
        case respond([UInt8])
        /// This run is not answered: the message is malformed or its element invalid (not counted:
        /// such a run tests no guess), or the code is no longer open.
        case refused(String)
    }

    public enum Confirmation: Sendable {
        case paired(controllerAD: [UInt8], keys: CodePairingKeys)
        /// The controller's confirmation did not match: a wrong code. `guessesLeft` may be 0, and
        /// the code has then ended.
        case wrongCode(guessesLeft: Int)
        case refused(String)
    }

    public private(set) var state: State = .waiting(counted: 0)
    private let password: SecretBytes
    private let ci: [UInt8]
    private let sid: [UInt8]
    private let hostAD: [UInt8]
    private let expiresAtMicros: UInt64
    /// Answered runs awaiting their confirmation, by the driver's run number.
    private var pending: [UInt64: (controllerAD: [UInt8], keys: CodePairingKeys)] = [:]

    public init(code: PairingCode, ci: [UInt8], sid: [UInt8], hostAD: [UInt8], expiresAtMicros: UInt64) {
        password = code.passwordBytes
        self.ci = ci
        self.sid = sid
        self.hostAD = hostAD
        self.expiresAtMicros = expiresAtMicros
    }

    /// A controller's first CPace message, on run `run` (a number the driver gives each attempt).
    public mutating func answer(run: UInt64, message: [UInt8], now: UInt64, group: any CPaceGroup, scalar: SecretBytes? = nil) -> Answer {
        expireIfDue(now: now)
        switch state {
        case .paired: return .refused("this code has already paired a controller")
        case .ended(let ending): return .refused(Self.describe(ending))
        case .waiting(let counted):
            guard counted < Self.maximumGuesses else { return .refused(Self.describe(.tooManyWrongCodes)) }
            guard pending[run] == nil else { return .refused("run \(run) was already answered") }
            do {
                let result = try CPaceResponder.respond(to: message, prs: password, ci: ci, sid: sid, ad: hostAD, group: group, scalar: scalar)
                // A run whose controller AD does not parse could never pair: refused, not counted.
                do {
                    _ = try ControllerPairingAD(parsing: result.peerAD)
                } catch {
                    return .refused("the controller's description is malformed: \(error.message)")
                }
                pending[run] = (result.peerAD, CodePairingKeys(key: result.key, transcript: message + result.message, group: group))
                state = .waiting(counted: counted + 1)
                return .respond(result.message)
            } catch {
                return .refused(error.message)
            }
        }
    }

    /// The controller's confirmation for run `run`.
    public mutating func confirm(run: UInt64, tag: [UInt8], now: UInt64) -> Confirmation {
        expireIfDue(now: now)
        switch state {
        case .paired: return .refused("this code has already paired a controller")
        case .ended(let ending): return .refused(Self.describe(ending))
        case .waiting(let counted):
            guard let run = pending.removeValue(forKey: run) else { return .refused("run \(run) was not answered") }
            if run.keys.confirms(tag) {
                pending.removeAll()
                state = .paired(controllerAD: run.controllerAD, keys: run.keys)
                return .paired(controllerAD: run.controllerAD, keys: run.keys)
            }
            let left = Self.maximumGuesses - counted
            if left == 0, pending.isEmpty { state = .ended(.tooManyWrongCodes) }
            return .wrongCode(guessesLeft: left)
        }
    }

    /// Run `run` ended without a confirmation (its connection closed): it stays counted.
    public mutating func abandon(run: UInt64, now: UInt64) {
        pending.removeValue(forKey: run)
        expireIfDue(now: now)
        if case .waiting(let counted) = state, counted >= Self.maximumGuesses, pending.isEmpty { state = .ended(.tooManyWrongCodes) }
    }

    /// Time passed: an open code ends at its expiry.
    public mutating func tick(now: UInt64) { expireIfDue(now: now) }

    private mutating func expireIfDue(now: UInt64) {
        guard now >= expiresAtMicros else { return }
        switch state {
        case .waiting:
            pending.removeAll()
            state = .ended(.expired)
        case .paired, .ended:
            break
        }
    }

    static func describe(_ ending: Ending) -> String {
        switch ending {
        case .expired: "this code has expired; ask the host for a new one"
        case .tooManyWrongCodes: "this code was tried with three wrong codes and has ended; ask the host for a new one"
        }
    }
}
