import PropertyBased
import Testing
import ZRCFrames

/// The ledger of file chunks in flight: an acknowledgement of an offset takes the request's chunks
/// ending at or before it out of flight, with everything sent before them (one stream: that has
/// arrived too), and a request that ends takes all of its own — checked against a plain model of
/// the chunks in flight.
@Suite struct FillerLedgerTests {
    @Test func acknowledgementsAndEndsTakeExactlyTheirChunks() async {
        // Each step: a request (of three), and what happens to it: 0–5 a chunk leaves, 6–8 an
        // acknowledgement of some offset, 9 the request ends.
        await propertyCheck(count: 200, input: Gen.int(in: 0...2).array(of: 1...120), Gen.int(in: 0...9).array(of: 1...120),
                            Gen.int(in: 0...40_000).array(of: 1...120)) { requests, events, amounts in
            var ledger = FillerLedger()
            var pacer = FramePacer()
            var model: [(request: UInt32, end: UInt64, bytes: Int)] = []
            var ends: [UInt32: UInt64] = [:]
            for step in 0..<min(requests.count, events.count, amounts.count) {
                let request = UInt32(requests[step])
                let now = UInt64(1_000 + step * 100)
                switch events[step] {
                case 0...5:
                    let bytes = 1 + amounts[step] % 16_384
                    let end = ends[request, default: 0] + UInt64(bytes)
                    ends[request] = end
                    ledger.sent(request: request, end: end, bytes: bytes, pacer: &pacer, now: now)
                    model.append((request, end, bytes))
                case 6...8:
                    let offset = UInt64(amounts[step]) * UInt64(amounts[step] % 7 + 1)
                    ledger.acknowledged(request: request, through: offset, pacer: &pacer, now: now)
                    // The pacer's acknowledgements are cumulative in sending order (one stream:
                    // what left before the last chunk covered has arrived too, whoever's it is).
                    if let last = model.lastIndex(where: { $0.request == request && $0.end <= offset }) { model.removeFirst(last + 1) }
                default:
                    pacer.discardFillers(ledger.forget(request: request))
                    model.removeAll { $0.request == request }
                    ends[request] = nil
                }
                #expect(pacer.bytesInFlight == model.reduce(0) { $0 + $1.bytes }, "step \(step): requests \(requests), events \(events)")
            }
        }
    }
}
