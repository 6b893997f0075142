/// How a `ScreenCapturer` gets pixels from the X server.
public enum CaptureMethod: Sendable, Hashable, CustomStringConvertible {
    /// MIT-SHM: the server writes the image into a shared-memory segment; only a short reply
    /// crosses the socket.
    case sharedMemory
    /// Core GetImage: the whole image travels through the X socket. Works everywhere, slower.
    case getImage

    public var description: String {
        switch self {
        case .sharedMemory: "MIT-SHM"
        case .getImage: "GetImage"
        }
    }
}
