import Foundation
import ZRCHostKit

/// One workload's figures, printed as a table.
struct WorkloadReport {
    let workload: Workload
    let updates: [UpdateMeasurement]
    let cpu: Duration
    let wall: Duration

    func print() {
        let seconds = wall / .seconds(1)
        let changes = updates.filter { !$0.isRefinement }
        let refinements = updates.count - changes.count
        var capture = Samples(), detect = Samples(), encode = Samples(), send = Samples(), total = Samples()
        var bytes = Samples(), rects = Samples(), quality = Samples()
        for update in changes {
            capture.add(micros: update.captureMicros)
            detect.add(micros: update.detectMicros)
            encode.add(micros: update.encodeMicros)
            send.add(micros: update.sendMicros)
            total.add(micros: update.hostMicros)
            bytes.add(value: Double(update.wireBytes))
            rects.add(value: Double(update.rects))
            quality.add(value: Double(update.quality))
        }
        Swift.print("\n\(workload.title)")
        Swift.print("  stage (per update)             median       p95   [ms]")
        Swift.print("  capture (damaged tiles)     \(capture.columns)")
        Swift.print("  change detection            \(detect.columns)")
        Swift.print("  encode (plan + JPEG)        \(encode.columns)")
        Swift.print("  send (seal + queue)         \(send.columns)")
        Swift.print("  host time per update        \(total.columns)")
        Swift.print(String(format: "  %.1f updates/s (%d changes, %d refinements in %.1f s)", Double(updates.count) / seconds,
                           changes.count, refinements, seconds))
        if !changes.isEmpty {
            Swift.print(String(format: "  bytes per update: median %.0f, p95 %.0f; rectangles per update: median %.0f; JPEG quality: median %.0f",
                               bytes.percentile(0.5), bytes.percentile(0.95), rects.percentile(0.5), quality.percentile(0.5)))
        }
        Swift.print(String(format: "  host CPU: %.1f%% of one core (%.3f s CPU per second)", cpu / wall * 100, cpu / wall))
    }
}
