internal import CTurboJPEG

/// Chroma subsampling of an encoded image. 4:2:0 halves colour resolution both ways and suits
/// moving content; 4:4:4 keeps every pixel's colour and is what sharp text needs.
public enum JPEGSubsampling: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case yuv420
    case yuv422
    case yuv444

    var turboJPEGValue: Int32 {
        switch self {
        case .yuv420: Int32(TJSAMP_420.rawValue)
        case .yuv422: Int32(TJSAMP_422.rawValue)
        case .yuv444: Int32(TJSAMP_444.rawValue)
        }
    }

    /// Maps a header's subsampling back; nil for the ones we never produce (4:4:0, 4:1:1, grey),
    /// which the decoder still decodes.
    init?(turboJPEGValue: Int32) {
        switch turboJPEGValue {
        case Int32(TJSAMP_420.rawValue): self = .yuv420
        case Int32(TJSAMP_422.rawValue): self = .yuv422
        case Int32(TJSAMP_444.rawValue): self = .yuv444
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .yuv420: "4:2:0"
        case .yuv422: "4:2:2"
        case .yuv444: "4:4:4"
        }
    }
}
