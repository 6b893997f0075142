internal import CZlib

/// One-shot zlib compression (RFC 1950 streams), for PNG screenshots.
public enum ZlibDeflate {
    /// zlib's default level: the desktop picture goes from 6.2 MB to about 0.3 MB; 9
    /// takes several times longer for a few per cent more.
    public static let defaultLevel: Int32 = 6

    public static func compress(_ data: [UInt8], level: Int32 = defaultLevel) throws(ZlibError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(compressBound(uLong(data.count))))
        var produced = uLongf(out.count)
        let result = data.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                compress2(output.baseAddress, &produced, input.baseAddress, uLong(input.count), level)
            }
        }
        // compressBound makes room for the worst case, so only memory can run out.
        guard result == Z_OK else { throw ZlibError("zlib could not compress \(data.count) bytes (\(result))") }
        out.removeSubrange(Int(produced)...)
        return out
    }
}
