/// The initiator's side of a CPace run (the controller in ZRC's pairing): `message` goes to the
/// responder; `finish` takes the answer and gives the key and the responder's AD.
public struct CPaceInitiator: Sendable {
    /// What a finished run gives: the 64-byte ISK (to be put through a KDF before use) and the
    /// peer's associated data, authenticated by the key.
    public struct Result: Sendable {
        public let key: SecretBytes
        public let peerAD: [UInt8]
    }

    private let scalar: SecretBytes
    private let sid: [UInt8]
    private let ownMessage: [UInt8]
    public var message: [UInt8] { ownMessage }

    /// `scalar` only for tests with known vectors; nil takes a fresh random one.
    public init(prs: SecretBytes, ci: [UInt8], sid: [UInt8], ad: [UInt8], group: any CPaceGroup, scalar: SecretBytes? = nil) throws(CPaceError) {
        guard ad.count <= CPace.maximumADLength else { throw CPaceError(.invalidInput, "our AD is \(ad.count) bytes, over \(CPace.maximumADLength)") }
        self.scalar = scalar ?? group.randomScalar()
        self.sid = sid
        let generator = CPace.generator(prs: prs, ci: ci, sid: sid, group: group)
        guard let element = group.multiply(self.scalar, generator) else {
            throw CPaceError(.invalidElement, "the generator gave the identity")
        }
        ownMessage = CPace.message(element: element.copyBytes(), ad: ad)
    }

    /// The responder's message; throws when it is malformed or its element is invalid.
    public func finish(_ responderMessage: [UInt8], group: any CPaceGroup) throws(CPaceError) -> Result {
        let (element, ad) = try CPace.parse(responderMessage)
        guard let shared = group.multiply(scalar, element) else {
            throw CPaceError(.invalidElement, "the responder's element is invalid")
        }
        let key = CPace.intermediateKey(sid: sid, shared: shared, transcript: ownMessage + responderMessage, group: group)
        return Result(key: key, peerAD: ad)
    }
}
