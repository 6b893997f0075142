// HMAC and HKDF exactly as the Noise spec (§4.3) defines them. They are pure logic over `hash`,
// so they live in the core; the measured pitfall is that HMAC must be RFC 2104 over the *unkeyed*
// BLAKE2b-512 with a 128-byte block, not BLAKE2b's built-in keyed mode.

extension NoiseCrypto {
    /// HASH of public data, for the handshake hash `h`.
    func hash(_ first: [UInt8], _ second: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: hashLength)
        first.withUnsafeBytes { a in
            second.withUnsafeBytes { b in
                output.withUnsafeMutableBytes { hash([a, b], into: $0) }
            }
        }
        return output
    }

    /// HMAC-HASH(key, data₀ ‖ data₁ ‖ …) per RFC 2104. Every intermediate that depends on the key
    /// lives in `SecretBytes`.
    func hmac(key: UnsafeRawBufferPointer, data: [UnsafeRawBufferPointer]) -> SecretBytes {
        // RFC 2104: a key longer than a block is hashed first. Noise keys (HASHLEN = 64) never
        // are, but the function should not silently truncate if that ever changes.
        if key.count > blockLength {
            let shortened = SecretBytes(count: hashLength) { hash([key], into: $0) }
            return shortened.withUnsafeBytes { hmac(key: $0, data: data) }
        }
        let inner = SecretBytes(count: hashLength) { innerHash in
            let innerPad = pad(key: key, with: 0x36)
            innerPad.withUnsafeBytes { hash([$0] + data, into: innerHash) }
        }
        return SecretBytes(count: hashLength) { outerHash in
            let outerPad = pad(key: key, with: 0x5c)
            outerPad.withUnsafeBytes { padBytes in
                inner.withUnsafeBytes { hash([padBytes, $0], into: outerHash) }
            }
        }
    }

    /// HKDF(chaining_key, input_key_material, num_outputs) from the Noise spec: 2 or 3 outputs
    /// of HASHLEN bytes each. Callers truncate to 32 bytes where an output becomes a cipher key.
    func hkdf(chainingKey: SecretBytes, inputKeyMaterial: UnsafeRawBufferPointer, outputs: Int) -> [SecretBytes] {
        precondition(outputs == 2 || outputs == 3, "Noise HKDF yields 2 or 3 outputs")
        let tempKey = chainingKey.withUnsafeBytes { hmac(key: $0, data: [inputKeyMaterial]) }
        var results: [SecretBytes] = []
        results.reserveCapacity(outputs)
        for counter in 1...UInt8(outputs) {
            let previous = results.last ?? SecretBytes.zeros(count: 0)
            let next = tempKey.withUnsafeBytes { keyBytes in
                previous.withUnsafeBytes { previousBytes in
                    withUnsafeBytes(of: counter) { counterByte in
                        hmac(key: keyBytes, data: [previousBytes, counterByte])
                    }
                }
            }
            results.append(next)
        }
        return results
    }

    /// The key zero-padded to a block and XORed with `byte` (ipad 0x36 / opad 0x5c).
    private func pad(key: UnsafeRawBufferPointer, with byte: UInt8) -> SecretBytes {
        SecretBytes(count: blockLength) { block in
            for index in 0..<block.count {
                block[index] = (index < key.count ? key[index] : 0) ^ byte
            }
        }
    }
}
