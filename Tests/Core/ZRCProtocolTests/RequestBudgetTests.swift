import PropertyBased
import Testing
import ZRCProtocol

@Suite struct RequestBudgetTests {
    /// Feeds `times` to a budget and returns which requests were allowed.
    static func allowed(_ budget: inout RequestBudget, at times: [UInt64]) -> [Bool] {
        times.map { budget.allow(nowMicros: $0) }
    }

    @Test func aBurstThenTheSustainedRate() {
        var budget = RequestBudget(perSecond: 100, burst: 10)
        let burst = Self.allowed(&budget, at: Array(repeating: 0, count: 15))
        #expect(burst.filter { $0 }.count == 10)
        let refusals = budget.takeRefusals()
        #expect(refusals == 5 && budget.refused == 0)
        let later = Self.allowed(&budget, at: [5_000, 10_000, 10_000_000, 10_000_000])
        #expect(later == [false, true, true, true], "half a token after 5 ms, one after 10 ms, refilled up to the burst")
    }

    @Test func aClockThatGoesBackAddsNothing() {
        var budget = RequestBudget(perSecond: 1000, burst: 1)
        let results = Self.allowed(&budget, at: [10_000_000, 5_000_000, 10_000_000, 10_001_000])
        #expect(results == [true, false, false, true])
    }

    /// Whatever the arrival pattern, no more than burst + rate × time pass.
    @Test func property_neverMoreThanBurstPlusRate() async {
        await propertyCheck(count: 300, input: Gen.uint64(in: 0...20_000).array(of: 1...500)) { gaps in
            var budget = RequestBudget(perSecond: 50, burst: 20)
            var now: UInt64 = 1_000
            var allowed = 0
            for gap in gaps {
                now += gap
                if budget.allow(nowMicros: now) { allowed += 1 }
            }
            let ceiling = 20 + Double(now - 1_000) * 50 / 1_000_000
            #expect(Double(allowed) <= ceiling + 1e-9, "\(allowed) allowed, at most \(ceiling)")
        }
    }
}
