internal import CTurboJPEG

/// Owns one TurboJPEG instance (`tjhandle`) and destroys it exactly once.
///
/// Not Sendable: a TurboJPEG instance keeps per-image state (error string, libjpeg structures)
/// and must not be used by two threads at once. Its owners (`JPEGEncoder`, `JPEGDecoder`) are
/// non-Sendable for the same reason; move them between tasks with `sending` or keep each in one actor.
final class TurboJPEGHandle {
    enum Role {
        case compress
        case decompress
    }

    let raw: tjhandle

    init(_ role: Role) throws(JPEGError) {
        let created: tjhandle? = switch role {
        case .compress: tjInitCompress()
        case .decompress: tjInitDecompress()
        }
        guard let created else {
            // With no instance, the only error text is the library-global one.
            let reason = String(cString: tjGetErrorStr2(nil))
            throw JPEGError(.libraryFailure, "libturbojpeg could not create a \(role) instance: \(reason)")
        }
        raw = created
    }

    deinit {
        // tjDestroy fails only for a handle that is not a TurboJPEG instance, which `raw` always is;
        // there is nobody to report to from deinit anyway.
        _ = tjDestroy(raw)
    }

    /// The message of the last failed call on this instance.
    var lastErrorMessage: String { String(cString: tjGetErrorStr2(raw)) }

    /// Whether the last failure was a libjpeg warning (for example "premature end of data")
    /// rather than a fatal error. With TJFLAG_STOPONWARNING both abort the call.
    var lastErrorWasWarning: Bool { tjGetErrorCode(raw) == Int32(TJERR_WARNING.rawValue) }
}
