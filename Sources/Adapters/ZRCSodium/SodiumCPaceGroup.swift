internal import CSodium
public import ZRCProtocol

/// ristretto255 and SHA-512 on libsodium 1.0.18, for CPace (`CPaceGroup`).
///
/// Having a value proves libsodium is initialised, so no method needs to check again.
public struct SodiumCPaceGroup: CPaceGroup {
    public init() throws(SodiumError) {
        guard SodiumLibrary.isReady else {
            throw SodiumError(kind: .initializationFailed,
                              message: "sodium_init() failed; is /dev/urandom (or getrandom) available?")
        }
    }

    public func sha512(_ parts: [[UInt8]]) -> [UInt8] {
        var state = crypto_hash_sha512_state()
        crypto_hash_sha512_init(&state)
        for part in parts {
            part.withUnsafeBufferPointer { buffer in
                _ = crypto_hash_sha512_update(&state, buffer.baseAddress, UInt64(buffer.count))
            }
        }
        var output = [UInt8](repeating: 0, count: Int(crypto_hash_sha512_BYTES))
        crypto_hash_sha512_final(&state, &output)
        // The state held the hashed input (the PRS among it).
        withUnsafeMutableBytes(of: &state) { sodium_memzero($0.baseAddress, $0.count) }
        return output
    }

    public func element(fromHash hash: [UInt8]) -> [UInt8] {
        precondition(hash.count == Int(crypto_core_ristretto255_HASHBYTES), "CPace hashes to 64 bytes")
        var element = [UInt8](repeating: 0, count: Int(crypto_core_ristretto255_BYTES))
        _ = crypto_core_ristretto255_from_hash(&element, hash)
        return element
    }

    public func multiply(_ scalar: SecretBytes, _ element: [UInt8]) -> SecretBytes? {
        guard scalar.count == Int(crypto_core_ristretto255_SCALARBYTES), element.count == Int(crypto_core_ristretto255_BYTES) else { return nil }
        var failed = false
        let product = SecretBytes(count: Int(crypto_core_ristretto255_BYTES)) { output in
            scalar.withUnsafeBytes { scalarBytes in
                element.withUnsafeBufferPointer { elementBytes in
                    // -1: the element does not decode, or the product is the identity.
                    failed = crypto_scalarmult_ristretto255(output.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                                            scalarBytes.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                                            elementBytes.baseAddress!) != 0
                }
            }
        }
        return failed ? nil : product
    }

    public func randomScalar() -> SecretBytes {
        SecretBytes(count: Int(crypto_core_ristretto255_SCALARBYTES)) { output in
            crypto_core_ristretto255_scalar_random(output.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }
}
