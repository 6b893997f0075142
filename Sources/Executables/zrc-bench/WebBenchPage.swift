import ArgumentParser
import Foundation
import ZRCWebTesting

/// `zrc-bench web`'s viewer process and browser page, with the measurements taken in the page.
struct WebBenchPage {
    let viewer: BenchChild
    let browser: BrowserDriver

    static func open(host: BenchHost, directory: URL, width: Int, height: Int) async throws -> WebBenchPage {
        let viewerDirectory = directory.appendingPathComponent("web-viewer")
        try FileManager.default.createDirectory(at: viewerDirectory, withIntermediateDirectories: true)
        let viewer = try BenchChild("the web viewer", executable: BenchChild.selfExecutable, arguments: ["web-viewer", "--directory", viewerDirectory.path])
        viewer.send(line: try await host.invite())
        let line = try await viewer.nextLine(timeout: .seconds(60))
        guard line.hasPrefix("url ") else {
            viewer.stop()
            throw ValidationError("the web viewer said \(line)")
        }
        let browser: BrowserDriver
        do {
            browser = try await BrowserDriver.start()
            // A window a little larger than the screen: the page shows it at full resolution (fit, no scaling by the host).
            try await browser.call("open", ["url": String(line.dropFirst(4)), "width": width + 40, "height": height + 80, "dpr": 1])
            try await browser.call("waitFor", ["expression": "window.zrcViewer.view.mapping?.pictureWidth === \(width)", "timeout": 120])
        } catch {
            viewer.stop()
            throw ValidationError("\(error)")
        }
        return WebBenchPage(viewer: viewer, browser: browser)
    }

    /// Clicks the probe `count` times, `pause` ms apart; per click, pointerdown → first painted
    /// animation frame showing the flip, and message received → drawn (ms).
    func clicks(_ count: Int, pause: Int, probeX: Int, probeY: Int) async throws -> [(painted: Double, drawn: Double)] {
        try await browser.call("eval", ["expression": """
            (() => {
              const canvas = document.getElementById('screen'), context = canvas.getContext('2d');
              const colour = () => { const d = context.getImageData(\(probeX), \(probeY), 1, 1).data; return d[0] > d[2] ? 0 : 1; };
              window.zrcBench = { results: [], pending: null };
              canvas.addEventListener('pointerdown', (e) => { zrcBench.pending = { at: e.timeStamp, from: colour() }; }, { capture: true });
              window.zrcAfterDraw = (time, frames) => {
                const pending = zrcBench.pending;
                if (!pending || colour() === pending.from) return;
                const now = performance.now();
                zrcBench.results.push({ painted: time - pending.at, drawn: now - Math.max(...frames.map((f) => f.receivedAt)) });
                zrcBench.pending = null;
              };
              return true;
            })()
            """])
        let geometry = try await browser.call("geometry")
        let left = geometry["left"] as? Double ?? 0, top = geometry["top"] as? Double ?? 0
        let scale = (geometry["width"] as? Double ?? 1) / max(1, geometry["screenWidth"] as? Double ?? 1)
        let x = left + (Double(probeX) + 0.5) * scale, y = top + (Double(probeY) + 0.5) * scale
        for index in 0..<count {
            try await browser.call("mouse", ["action": "click", "x": x, "y": y, "button": "left"])
            try await browser.call("waitFor", ["expression": "zrcBench.results.length > \(index)", "timeout": 30])
            try await Task.sleep(for: .milliseconds(pause))
        }
        let answer = try await browser.call("eval", ["expression": "zrcBench.results"])
        let results = answer["value"] as? [[String: Any]] ?? []
        return results.map { ($0["painted"] as? Double ?? .nan, $0["drawn"] as? Double ?? .nan) }
    }

    struct Watch {
        var receivedPerSecond: Double
        var paintsPerSecond: Double
        var viewerCPU: Double
        var browserCPU: Double
        var outOfOrder: Int
    }

    func watch(seconds: Int) async throws -> Watch {
        let start = try await sample()
        try await Task.sleep(for: .seconds(seconds))
        let end = try await sample()
        let wall = (end.at - start.at) / 1e9
        let outOfOrder = try await browser.call("eval", ["expression": "window.zrcOutOfOrder ?? 0"])["value"] as? Int ?? -1
        return Watch(receivedPerSecond: Double(end.received - start.received) / wall, paintsPerSecond: Double(end.paints - start.paints) / wall,
                     viewerCPU: 100 * (end.viewerCPU - start.viewerCPU) / wall, browserCPU: 100 * (end.browserCPU - start.browserCPU) / wall,
                     outOfOrder: outOfOrder)
    }

    struct Soak {
        var heapBefore: Double, heapAfter: Double, rssBefore: Double, rssAfter: Double
    }

    func soak(seconds: Int) async throws -> Soak {
        let heap = "(() => { if (window.gc) window.gc(); return performance.memory.usedJSHeapSize; })()"
        let heapBefore = try await browser.call("eval", ["expression": heap])["value"] as? Double ?? 0
        let before = try await sample()
        try await Task.sleep(for: .seconds(seconds))
        let heapAfter = try await browser.call("eval", ["expression": heap])["value"] as? Double ?? 0
        let after = try await sample()
        return Soak(heapBefore: heapBefore / 1e6, heapAfter: heapAfter / 1e6, rssBefore: Double(before.rssKiB) / 1024, rssAfter: Double(after.rssKiB) / 1024)
    }

    private struct Sample {
        var at: Double, received: Int, paints: Int, viewerCPU: Double, browserCPU: Double, rssKiB: Int
    }

    private func sample() async throws -> Sample {
        viewer.send(line: "stats")
        let words = try await viewer.nextLine(timeout: .seconds(30)).split(separator: " ")
        let paints = try await browser.call("eval", ["expression": "window.zrcDrawn.count"])["value"] as? Int ?? 0
        return Sample(at: Double(DispatchTime.now().uptimeNanoseconds), received: words.count > 1 ? Int(words[1]) ?? 0 : 0, paints: paints,
                      viewerCPU: ProcessMemory.cpuSeconds(ofTree: viewer.process.processIdentifier),
                      browserCPU: ProcessMemory.cpuSeconds(ofTree: browser.processIdentifier),
                      rssKiB: words.count > 3 ? Int(words[3]) ?? 0 : 0)
    }

    func close() async {
        viewer.send(line: "quit")
        await browser.close()
        _ = try? await viewer.nextLine(timeout: .milliseconds(100))
        viewer.stop()
    }
}
