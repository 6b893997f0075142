import Testing
import ZRCControllerKit
import ZRCFrames
import ZRCProtocol

/// The session's newest-only push channel to its viewer.
@Suite struct ViewerFeedTests {
    private static func frame(_ version: UInt64, changed: [PixelRect]) -> ComposedFrame {
        ComposedFrame(pixels: PixelBuffer(width: 4, height: 4), version: version, changedSince: changed)
    }

    @Test func newestWinsAndChangesCountFromWhatTheViewerTook() async {
        let feed = ViewerFeed()
        var asked: [UInt64] = []
        for version in UInt64(1)...3 {
            feed.reclaim()
            feed.publish { taken in
                asked.append(taken)
                return Self.frame(version, changed: [PixelRect(x: Int(version), y: 0, width: 1, height: 1)])
            }
        }
        #expect(await feed.changed())
        let first = feed.take()
        #expect(first.frameIsNew && first.frame?.version == 3 && first.framesComposed == 3)
        #expect(asked == [0, 0, 0], "nothing was taken, so every frame is measured from the start")
        let again = feed.take()
        #expect(!again.frameIsNew && again.frame?.version == 3 && again.frame?.changedSince == [])
        feed.publish { taken in
            asked.append(taken)
            return Self.frame(4, changed: [])
        }
        #expect(asked.last == 3)
        #expect(feed.hasNewFrame)
    }

    @Test func aFrameBeingReplacedIsNotHeldByTheFeed() {
        let feed = ViewerFeed()
        feed.publish { _ in Self.frame(1, changed: []) }
        feed.reclaim()
        let snapshot = feed.take()
        #expect(snapshot.frame == nil && !snapshot.frameIsNew && !feed.hasNewFrame)
    }

    @Test func pointerAndLinkWakeTheViewerWithoutAFrame() async {
        let feed = ViewerFeed()
        var cursor = RemoteCursor()
        cursor.x = 7
        cursor.visible = true
        feed.publish(cursor: cursor)
        #expect(await feed.changed())
        #expect(feed.take().cursor == cursor)
        #expect(feed.take().frame == nil)
    }

    @Test func aWaitingViewerIsWokenByAPublishAndByTheEnd() async {
        let feed = ViewerFeed()
        async let woken = feed.changed()
        // Publishing before or after the viewer starts waiting both wake it (nothing is lost).
        feed.publish { _ in Self.frame(1, changed: []) }
        #expect(await woken)
        async let ended = feed.changed()
        feed.close()
        #expect(await ended == false)
        #expect(await feed.changed() == false, "a closed feed never waits")
    }

    @Test func cancellingAWaitEndsIt() async {
        let feed = ViewerFeed()
        let waiter = Task { await feed.changed() }
        waiter.cancel()
        #expect(await waiter.value == false)
    }
}
