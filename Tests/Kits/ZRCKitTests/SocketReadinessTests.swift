import Foundation
import Testing
@testable import ZRCHostX11
import Synchronization

/// The X11 source's wait on its socket: every viewer's wait is woken, and no wait leaves a live
/// read source behind (one that did could fire without end on a readable socket).
@Suite struct SocketReadinessTests {
    /// A pipe whose read end never becomes readable (nothing is written).
    static func quietPipe() -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0)  // the test's own resource
        return (fds[0], fds[1])
    }

    static func waitUntil(_ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return await condition()
    }

    @Test func oneWakeUpWakesEveryWaiter() async {
        let (readEnd, writeEnd) = Self.quietPipe()
        defer { close(readEnd); close(writeEnd) }
        let wakeUp = SocketReadiness.WakeUp()
        let finished = Counter()
        let waits = (0..<3).map { _ in
            Task {
                await SocketReadiness.wait(fileDescriptor: readEnd, timeout: .seconds(3600), wakeUp: wakeUp)
                await finished.increment()
            }
        }
        #expect(await Self.waitUntil { wakeUp.waiting == 3 }, "all three are waiting")
        wakeUp.fire()
        #expect(await Self.waitUntil { await finished.value == 3 }, "one fire woke all three (it used to reach only the last to register)")
        for wait in waits { await wait.value }
        #expect(wakeUp.waiting == 0)
    }

    @Test func aWaitCancelledBeforeItStartsLeavesNoLiveSource() async {
        let (readEnd, writeEnd) = Self.quietPipe()
        defer { close(readEnd); close(writeEnd) }
        // A readable socket: a leaked source would keep firing.
        _ = write(writeEnd, "x", 1)
        let sources = SocketReadiness.SourceCount()
        for _ in 0..<50 {
            let wait = Task { await SocketReadiness.wait(fileDescriptor: readEnd, timeout: .seconds(3600), sources: sources) }
            wait.cancel()
            await wait.value
        }
        let wakeUp = SocketReadiness.WakeUp()
        for _ in 0..<50 {
            let wait = Task { await SocketReadiness.wait(fileDescriptor: readEnd, timeout: .seconds(3600), wakeUp: wakeUp, sources: sources) }
            wakeUp.fire()
            wait.cancel()
            await wait.value
        }
        #expect(await Self.waitUntil { sources.live.load(ordering: .relaxed) == 0 },
                "\(sources.live.load(ordering: .relaxed)) read sources still live")
    }
}

extension SocketReadinessTests {
    /// A wait returns only once libdispatch has let go of the descriptor, so the caller may close
    /// it at once. Closing it under a live source (a test's pipe, a connection replaced after a
    /// screen change) crashed libdispatch's event loop once the number was reused.
    @Test func aFinishedWaitHasReleasedItsDescriptor() async {
        let sources = SocketReadiness.SourceCount()
        var stillLive = 0
        for _ in 0..<200 {
            let (readEnd, writeEnd) = Self.quietPipe()
            _ = write(writeEnd, "x", 1)  // readable: the wait ends through its event handler
            await SocketReadiness.wait(fileDescriptor: readEnd, timeout: .seconds(3600), sources: sources)
            if sources.live.load(ordering: .relaxed) != 0 { stillLive += 1 }
            close(readEnd)
            close(writeEnd)
            // The next wait must not be counted with this one's source.
            _ = await Self.waitUntil { sources.live.load(ordering: .relaxed) == 0 }
        }
        #expect(stillLive == 0, "\(stillLive) of 200 waits returned with their read source still live")
    }
}

private actor Counter {
    private(set) var value = 0
    func increment() { value += 1 }
}
