import Foundation
import Testing
import ZRCXTestSupport
import ZRCWebTesting

/// The clipboard between the page and the host, with the terminal viewer's policy: a paste in the
/// page sets the host's clipboard before its keys; a host copy is only offered until "Take host
/// clipboard", then lands in the browser's clipboard.
@Suite(.serialized) struct ViewerInBrowserClipboardTests {
    @Test func aPasteReachesTheHostAndAHostCopyOnlyWhenTaken() async throws {
        let web = try await WebViewerRig()
        let display = web.rig.display.display
        try await web.browser.call("waitFor", ["expression": "document.getElementById('status').textContent.includes('connected')"])
        try await web.browser.call("focus")

        // Page → host.
        let pasted = "from the page ✓ grüße"
        try await web.browser.call("paste", ["text": pasted])
        var hostText = ""
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let read = try await XTool.output("timeout", ["10", "xclip", "-selection", "clipboard", "-o"], display: display)
            hostText = read.status == 0 ? read.text : ""
            if hostText == pasted { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(hostText == pasted, "the host's clipboard holds \(hostText.debugDescription)")

        // Host → page: offered, not written, until taken.
        let copied = "copied on the host ✓"
        let file = web.rig.env.root.appendingPathComponent("copy.txt")
        try Data(copied.utf8).write(to: file)
        try await XTool.startDaemon(["xsel", "--clipboard", "--input"], input: file.path, display: display)
        try await web.browser.call("waitFor", ["expression": "document.getElementById('status').textContent.includes('Take host clipboard')"])
        let before = try await web.browser.call("eval", ["expression": "window.zrcViewer.clipboard.lastFromHost ?? null"])
        #expect(before["value"] is NSNull, "nothing reached the page unasked: \(before)")
        try await web.browser.call("click", ["selector": "#take-clipboard"])
        try await web.browser.call("waitFor", ["expression": "window.zrcViewer.clipboard.lastFromHost === \(Self.jsString(copied))"])
        let inBrowser = try await web.browser.call("clipboardRead")
        let boxText = try await web.browser.call("eval", ["expression": "document.querySelector('#paste-box textarea').value"])
        #expect(inBrowser["text"] as? String == copied || boxText["value"] as? String == copied,
                "the browser's clipboard (or, refused, the paste box) holds the host's text: \(inBrowser) \(boxText)")
        await web.close()
    }

    static func jsString(_ text: String) -> String {
        let data = try? JSONSerialization.data(withJSONObject: [text])
        return String(decoding: data ?? Data("[\"\"]".utf8), as: UTF8.self).dropFirst().dropLast().description
    }
}
