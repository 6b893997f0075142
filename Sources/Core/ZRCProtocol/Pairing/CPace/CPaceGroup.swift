/// The group and hash CPace runs on — ristretto255 and SHA-512 (CPACE-RISTR255-SHA512 of
/// draft-irtf-cfrg-cpace). The protocol core does no cryptography itself: an adapter (ZRCSodium on
/// libsodium) supplies these, and the protocol built from them lives in `CPace`.
public protocol CPaceGroup: Sendable {
    /// SHA-512 of the concatenation of `parts`: 64 bytes.
    func sha512(_ parts: [[UInt8]]) -> [UInt8]

    /// The ristretto255 element of 64 uniform bytes (RFC 9496 §4.3.4, libsodium's
    /// `crypto_core_ristretto255_from_hash`): 32 bytes.
    func element(fromHash hash: [UInt8]) -> [UInt8]

    /// `scalar` × the element encoded in `element` (32 bytes each). Nil when `element` is not a
    /// canonical encoding or the product is the identity — the draft's `scalar_mult_vfy` abort.
    func multiply(_ scalar: SecretBytes, _ element: [UInt8]) -> SecretBytes?

    /// A uniformly random scalar in ]0, L[ (32 bytes, little-endian).
    func randomScalar() -> SecretBytes
}
