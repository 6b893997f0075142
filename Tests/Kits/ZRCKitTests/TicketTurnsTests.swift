import PropertyBased
import Testing
@testable import ZRCHostKit

/// Turns come in the order tickets were drawn, however the holders' awaits interleave: the
/// session driver's download chunks reach the connection in the order they were planned.
@Suite struct TicketTurnsTests {
    /// An actor in the driver's shape: draws a ticket synchronously, then awaits (a reader, a
    /// write) before and during its turn.
    actor Sender {
        var turns = TicketTurns()
        var order: [Int] = []
        var turnsDrawn: Int { Int(turns.drawnCount) }

        func send(_ name: Int, yieldsBefore: Int, yieldsDuring: Int) async {
            let ticket = turns.draw()
            for _ in 0..<yieldsBefore { await Task.yield() }
            if !turns.isServing(ticket) { await withCheckedContinuation { turns.park(ticket, $0) } }
            for _ in 0..<yieldsDuring { await Task.yield() }
            order.append(name)
            turns.finish()?.resume()
        }

        /// Starts `name`'s send, its ticket drawn before this returns.
        nonisolated func start(_ name: Int, yieldsBefore: Int, yieldsDuring: Int) -> Task<Void, Never> {
            Task { await send(name, yieldsBefore: yieldsBefore, yieldsDuring: yieldsDuring) }
        }
    }

    @Test func turnsFollowTheTicketsWhateverTheAwaits() async {
        await propertyCheck(count: 100, input: Gen.int(in: 0...6).array(of: 1...30), Gen.int(in: 0...6).array(of: 1...30)) { before, during in
            let sender = Sender()
            let count = min(before.count, during.count)
            // Draw in a known order: each send's ticket is drawn once the one before has its own.
            var tasks: [Task<Void, Never>] = []
            for name in 0..<count {
                tasks.append(sender.start(name, yieldsBefore: before[name], yieldsDuring: during[name]))
                while await sender.turnsDrawn < name + 1 { await Task.yield() }
            }
            for task in tasks { await task.value }
            #expect(await sender.order == Array(0..<count), "yields before \(before), during \(during)")
        }
    }

    @Test func aTicketWhoseTurnHasComeDoesNotWait() {
        var turns = TicketTurns()
        let first = turns.draw()
        let second = turns.draw()
        #expect(turns.isServing(first))
        #expect(!turns.isServing(second))
        #expect(turns.finish() == nil, "nobody parked for the second turn")
        #expect(turns.isServing(second))
    }
}
