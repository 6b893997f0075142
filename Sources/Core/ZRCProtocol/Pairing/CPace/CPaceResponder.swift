/// The responder's side of a CPace run (the host in ZRC's pairing): it answers the initiator's
/// message with its own and has the key at once. It learns whether the initiator knew the PRS
/// only from what the initiator does with the key (a confirmation), never from this exchange.
public enum CPaceResponder {
    public struct Result: Sendable {
        public let message: [UInt8]
        public let key: SecretBytes
        public let peerAD: [UInt8]
    }

    /// `scalar` only for tests with known vectors; nil takes a fresh random one.
    public static func respond(to initiatorMessage: [UInt8], prs: SecretBytes, ci: [UInt8], sid: [UInt8], ad: [UInt8],
                               group: any CPaceGroup, scalar: SecretBytes? = nil) throws(CPaceError) -> Result {
        guard ad.count <= CPace.maximumADLength else { throw CPaceError(.invalidInput, "our AD is \(ad.count) bytes, over \(CPace.maximumADLength)") }
        let (peerElement, peerAD) = try CPace.parse(initiatorMessage)
        let scalar = scalar ?? group.randomScalar()
        let generator = CPace.generator(prs: prs, ci: ci, sid: sid, group: group)
        guard let element = group.multiply(scalar, generator) else {
            throw CPaceError(.invalidElement, "the generator gave the identity")
        }
        guard let shared = group.multiply(scalar, peerElement) else {
            throw CPaceError(.invalidElement, "the initiator's element is invalid")
        }
        let message = CPace.message(element: element.copyBytes(), ad: ad)
        let key = CPace.intermediateKey(sid: sid, shared: shared, transcript: initiatorMessage + message, group: group)
        return Result(message: message, key: key, peerAD: peerAD)
    }
}
