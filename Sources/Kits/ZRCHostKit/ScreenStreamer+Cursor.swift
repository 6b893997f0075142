import ZRCFrames
import ZRCProtocol
import Logging
import ZRCNetworking

extension ScreenStreamer {
    /// The shape goes once per shape, the position whenever it moves; the controller draws the
    /// pointer itself, so pointer motion costs a few bytes instead of re-sent tiles. Returns
    /// whether a shape is on the controller and whether the pointer moved.
    func followPointer(isolation: isolated (any Actor)? = #isolation) async throws -> (shown: Bool, moved: Bool) {
        guard let cursor = try await sharing.source.cursor() else { return (sentShapeID != nil, false) }
        var shape = cursor.shape
        if let candidate = shape, candidate.shapeID != sentShapeID {
            // The source validates what the X server reports; this guard keeps any source's
            // mistake a hidden pointer rather than a message the peer must reject.
            do {
                try ZRCMessage.cursorShape(candidate).validate()
            } catch {
                logger.warning("not sending an invalid cursor shape: \(error.message)")
                shape = nil
            }
            if let valid = shape {
                try await connection.send(.cursorShape(valid))
                sentShapeID = valid.shapeID
            }
        }
        let visible = shape != nil
        if sentPosition?.x != cursor.x || sentPosition?.y != cursor.y || sentPosition?.visible != visible {
            try await connection.send(.cursorPosition(x: cursor.x, y: cursor.y, visible: visible, shapeID: shape?.shapeID ?? sentShapeID ?? 0))
            sentPosition = (cursor.x, cursor.y, visible)
            return (sentShapeID != nil, true)
        }
        return (sentShapeID != nil, false)
    }

    /// The monitor layout, at the start and whenever it changed (read when the schedule says).
    func readMonitors(isolation: isolated (any Actor)? = #isolation) async throws {
        let monitors = Array(await sharing.source.monitors().prefix(MonitorArea.maximumCount))
        guard !monitors.isEmpty, monitors != sentMonitors else { return }
        let message = ZRCMessage.monitorLayout(monitors)
        do {
            try message.validate()
        } catch {
            logger.warning("not sending an invalid monitor layout: \(error.message)")
            return
        }
        try await connection.send(message)
        sentMonitors = monitors
    }
}
