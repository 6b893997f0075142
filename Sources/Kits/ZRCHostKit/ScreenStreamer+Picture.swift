import ZRCFrames
import ZRCProtocol
import ZRCNetworking

/// The picture a controller asked to see (`scaledPictures`): its mapping, announced before the
/// first picture made with it, and the scaling that makes it.
extension ScreenStreamer {
    /// The controller shows a picture of this size and region from now on (the next capture
    /// announces its mapping).
    func show(_ request: PictureRequest) { pictureRequest = request }

    /// The capture as the controller asked to see it: scaled (and announced first, whenever the
    /// mapping changes) or, without a request, as it is.
    func picture(of capture: ScreenCapture, isolation: isolated (any Actor)? = #isolation) async throws
        -> (pixels: PixelBuffer, hints: [PixelRect]?) {
        guard let request = pictureRequest else { return (capture.pixels, capture.hints) }
        let mapping = PictureMapping.fitting(request, screenWidth: capture.pixels.width, screenHeight: capture.pixels.height)
        if mapping != announcedMapping {
            try await connection.send(.pictureMapping(mapping))
            announcedMapping = mapping
            scaler = mapping.isIdentity ? nil : PictureScaler(mapping: mapping)
        }
        guard var scaling = scaler else { return (capture.pixels, capture.hints) }
        scaler = nil  // the picture's storage stays uniquely referenced while it is redrawn
        let hints = scaling.update(from: capture.pixels, hints: capture.hints)
        scaler = scaling
        return (scaling.picture, hints)
    }

    /// Whether the controller asked for a picture whose mapping it has not been told yet (the next
    /// capture announces it).
    var pictureRequestPending: Bool {
        guard let request = pictureRequest else { return false }
        let size = stream.pictureSize
        return PictureMapping.fitting(request, screenWidth: size.width, screenHeight: size.height) != announcedMapping
    }
}
