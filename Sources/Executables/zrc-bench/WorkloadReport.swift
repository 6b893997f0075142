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
        let wireBytes = updates.reduce(0) { $0 + $1.wireBytes }
        Swift.print(String(format: "  %.1f updates/s (%d changes, %d refinements in %.1f s), %.2f kB/s of updates on the wire",
                           Double(updates.count) / seconds, changes.count, refinements, seconds, Double(wireBytes) / seconds / 1000))
        if !changes.isEmpty {
            Swift.print(String(format: "  bytes per update: median %.0f, p95 %.0f; rectangles per update: median %.0f; JPEG quality: median %.0f",
                               bytes.percentile(0.5), bytes.percentile(0.95), rects.percentile(0.5), quality.percentile(0.5)))
        }
        Swift.print(String(format: "  host CPU: %.1f%% of one core (%.3f s CPU per second)", cpu / wall * 100, cpu / wall))
    }
}

extension WorkloadReport {
    /// What each viewer's link carried: bytes and updates per second per viewer, and bytes per
    /// update (changes and refinements, everything sent).
    func perViewer(_ viewers: Int) -> (bytesPerSecond: Double, updatesPerSecond: Double, bytesPerUpdate: Double) {
        let seconds = wall / .seconds(1)
        let bytes = Double(updates.reduce(0) { $0 + $1.wireBytes })
        return (bytes / seconds / Double(viewers), Double(updates.count) / seconds / Double(viewers), bytes / Double(max(1, updates.count)))
    }

    /// One viewer's bytes beside each of `viewers` viewers', against the bar of 1.2× (sharing
    /// should cost no bytes: sessions in step send the same chunks of one lossless stream).
    static func printBytesPerViewer(one: WorkloadReport, many: WorkloadReport, viewers: Int) {
        let (single, each) = (one.perViewer(1), many.perViewer(viewers))
        Swift.print(String(format: "  bytes per viewer: one viewer %.0f B/s (%.1f updates/s, %.0f B an update); %d viewers %.0f B/s each "
                               + "(%.1f updates/s, %.0f B an update): %.2f× one viewer's per second, %.2f× per update (bar 1.2×)",
                           single.bytesPerSecond, single.updatesPerSecond, single.bytesPerUpdate, viewers, each.bytesPerSecond,
                           each.updatesPerSecond, each.bytesPerUpdate, each.bytesPerSecond / max(1e-9, single.bytesPerSecond),
                           each.bytesPerUpdate / max(1e-9, single.bytesPerUpdate)))
    }
}
