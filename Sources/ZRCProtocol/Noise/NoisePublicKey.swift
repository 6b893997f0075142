// Temporary stand-in until the Noise branch lands; replaced at merge.
public struct NoisePublicKey: Sendable, Hashable {
    public let bytes: [UInt8]
    public init(bytes: [UInt8]) throws {
        guard bytes.count == 32 else { throw HexError() }
        self.bytes = bytes
    }
    public var hex: String { bytes.map { String($0, radix: 16) }.joined() }
    public struct HexError: Error {}
}
