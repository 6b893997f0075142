import PropertyBased
import Testing
import ZRCProtocol

@Suite struct TransferRateLimitTests {
    @Test(arguments: [
        ("500K", UInt64(500 * 1024)),
        ("2M", UInt64(2 << 20)),
        ("2m", UInt64(2 << 20)),
        ("1.5G", UInt64(3 << 29)),
        ("4096B", UInt64(4096)),
        ("100", UInt64(100 * 1024)),
        ("1024B", UInt64(1024)),
    ])
    func ratesAreReadAsRsyncReadsThem(text: String, bytes: UInt64) {
        #expect(TransferRateLimit(parsing: text)?.bytesPerSecond == bytes)
    }

    @Test(arguments: ["", "0", "0K", "1023B", "-5M", "2MiB", "1.2.3M", "M", "5T", "2048G", "1e9", "nan", "inf", "٣M", " 5M"])
    func anythingElseIsRefused(text: String) {
        #expect(TransferRateLimit(parsing: text) == nil, "\(text)")
    }

    @Test func bytesAreDueInProportion() throws {
        let limit = try #require(TransferRateLimit(parsing: "1M"))
        #expect(limit.dueMicros(after: 0) == 0)
        #expect(limit.dueMicros(after: 1 << 20) == 1_000_000)
        #expect(limit.dueMicros(after: 3 << 19) == 1_500_000)
        #expect(limit.description == "1.0 MiB/s")
    }

    /// No size the protocol allows overflows, and later bytes are never due earlier.
    @Test func property_dueTimesGrowWithoutOverflow() async {
        await propertyCheck(count: 2000, input: Gen.uint64(in: TransferRateLimit.minimum...(1 << 40)), Gen.uint64(in: 0...(UInt64(1) << 63)),
                            Gen.uint64(in: 0...(1 << 30))) { rate, bytes, more in
            let limit = TransferRateLimit(bytesPerSecond: rate)!
            let due = limit.dueMicros(after: bytes)
            #expect(limit.dueMicros(after: bytes + more) >= due)
            #expect(due / 1_000_000 == bytes / rate)
        }
    }
}
