import Foundation
import Testing
import ZRCTestSupport
import ZRCXTestSupport
import ZRCWebTesting

/// The browser viewer's files in headless Chromium: picked files and a drop land in the host's
/// upload directory bit-identical, a name that exists asks before it is replaced, a download goes
/// through the browser's own download manager, and a cancelled upload leaves no target.
@Suite struct ViewerInBrowserFilesTests {
    static func doneCount(_ count: Int) -> String {
        "(() => { const rows = [...document.querySelectorAll('#files-transfers li')]; "
            + "return rows.length >= \(count) && rows.every(r => r.dataset.outcome === 'done'); })()"
    }

    /// The host's upload directory (in its own home) and a local folder for the browser's files.
    static func folders(_ web: WebViewerRig) throws -> (uploads: URL, local: URL) {
        let local = web.rig.env.root.appendingPathComponent("local")
        try FileManager.default.createDirectory(at: local, withIntermediateDirectories: true)
        return (web.rig.env.root.appendingPathComponent("host/home/Downloads"), local)
    }

    @Test func uploadsByPickerAndDropDownloadsAndAsksBeforeReplacing() async throws {
        let web = try await WebViewerRig()
        do {
            let browser = web.browser
            let (uploads, local) = try Self.folders(web)
            let big = local.appendingPathComponent("big.bin")
            try FileTransferEndToEndTests.random(3 << 20).write(to: big)
            let note = local.appendingPathComponent("note.txt")
            try Data("first\n".utf8).write(to: note)

            try await browser.call("waitFor", ["expression": "!document.getElementById('files-button').hidden"])
            try await browser.call("click", ["selector": "#files-button"])
            try await browser.call("waitFor", ["expression": "document.getElementById('files-target').textContent.includes('Downloads')"])

            try await browser.call("setInputFiles", ["selector": "#files-pick", "paths": [big.path, note.path]])
            try await browser.call("waitFor", ["expression": Self.doneCount(2)])
            #expect(FileTransferEndToEndTests.identical(big, uploads.appendingPathComponent("big.bin")))
            #expect(try Data(contentsOf: uploads.appendingPathComponent("note.txt")) == Data("first\n".utf8))

            // A drop on the screen: the file the browser hands the page.
            try await browser.call("eval", ["expression": """
                (() => {
                  const transfer = new DataTransfer();
                  transfer.items.add(new File(["dropped on the screen\\n"], "dropped.txt", { lastModified: 1600000000000 }));
                  const area = document.getElementById('screen-area');
                  area.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
                  area.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
                  return true;
                })()
                """])
            try await browser.call("waitFor", ["expression": Self.doneCount(3)])
            #expect(try Data(contentsOf: uploads.appendingPathComponent("dropped.txt")) == Data("dropped on the screen\n".utf8))
            let modified = (try FileManager.default.attributesOfItem(atPath: uploads.appendingPathComponent("dropped.txt").path)[.modificationDate] as? Date)
            #expect(modified?.timeIntervalSince1970 == 1_600_000_000, "the file's time is kept")

            // The same name again: the page asks; Replace replaces.
            try Data("second\n".utf8).write(to: note)
            try await browser.call("setInputFiles", ["selector": "#files-pick", "paths": [note.path]])
            try await browser.call("waitFor", ["expression": "document.getElementById('file-exists').open"])
            if let directory = ProcessInfo.processInfo.environment["ZRC_SCREENSHOTS"] {
                try await browser.call("screenshot", ["path": "\(directory)/browser-files-exists.png"])
            }
            try await browser.call("click", ["selector": "#file-exists button[value=replace]"])
            try await browser.call("waitFor", ["expression": Self.doneCount(4)])
            #expect(try Data(contentsOf: uploads.appendingPathComponent("note.txt")) == Data("second\n".utf8))

            // The panel lists the upload directory; a download goes to the browser's downloads.
            try await browser.call("eval", ["expression": "window.zrcViewer.files.open('Downloads')"])
            try await browser.call("waitFor", ["expression": "document.getElementById('files-list').textContent.includes('big.bin')"])
            if let directory = ProcessInfo.processInfo.environment["ZRC_SCREENSHOTS"] {
                try await browser.call("screenshot", ["path": "\(directory)/browser-files-panel.png"])
            }
            let saved = local.appendingPathComponent("saved.bin")
            let download = try await browser.call("expectDownload", ["path": saved.path, "expression": """
                [...document.querySelectorAll('#files-list tr')].find(r => r.cells[0].textContent === 'big.bin').querySelector('button').click()
                """])
            #expect(download["name"] as? String == "big.bin")
            #expect(download["failure"] is NSNull || download["failure"] == nil, "\(download)")
            #expect(FileTransferEndToEndTests.identical(big, saved), "the download is bit-identical")
            let errors = try await browser.call("eval", ["expression": "(window.zrcErrors ?? []).join('\\n')"])
            #expect((errors["value"] as? String ?? "").isEmpty, "no script errors: \(errors)")
        } catch {
            Issue.record("\(error)\n\(web.browser.log.suffix(3000))\n\(web.viewer.stderr.suffix(3000))")
        }
        await web.close()
    }

    static let cancelAtFirstProgress = """
        (() => {
          const list = document.getElementById('files-transfers');
          const watch = new MutationObserver(() => {
            const bar = list.querySelector('li progress');
            const cancel = list.querySelector('li button');
            if (bar && bar.value > 0 && cancel) { watch.disconnect(); cancel.click(); }
          });
          watch.observe(list, { subtree: true, childList: true, attributes: true, characterData: true });
          return true;
        })()
        """

    /// The upload parts (`.zrc-….part`) in `directory`.
    static func parts(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".zrc-") && $0.hasSuffix(".part") }
    }

    @Test func aCancelledUploadLeavesNoTargetAndNoPart() async throws {
        let web = try await WebViewerRig()
        do {
            let browser = web.browser
            let (uploads, local) = try Self.folders(web)
            let big = local.appendingPathComponent("huge.bin")
            try FileTransferEndToEndTests.random(256 << 20).write(to: big)
            try await browser.call("waitFor", ["expression": "!document.getElementById('files-button').hidden"])
            // The page itself presses Cancel at the first progress it shows: a click sent from here
            // after seeing progress raced the upload's end on a busy machine (the button had gone).
            // A mutation observer runs before the page handles the host's next event.
            try await browser.call("eval", ["expression": Self.cancelAtFirstProgress])
            try await browser.call("setInputFiles", ["selector": "#files-pick", "paths": [big.path]])
            try await browser.call("waitFor", ["expression": "document.querySelector('#files-transfers li').dataset.outcome === 'failed'"])
            let state = try await browser.call("text", ["selector": "#files-transfers li .state"])
            #expect((state["text"] as? String ?? "").contains("cancelled"), "\(state)")
            // The session goes on (another upload arrives after it) and no file took the name.
            let small = local.appendingPathComponent("after.txt")
            try Data("after\n".utf8).write(to: small)
            try await browser.call("setInputFiles", ["selector": "#files-pick", "paths": [small.path]])
            try await browser.call("waitFor", ["expression": "document.querySelector('#files-transfers li').dataset.outcome === 'done'"])
            #expect(try Data(contentsOf: uploads.appendingPathComponent("after.txt")) == Data("after\n".utf8))
            #expect(!FileManager.default.fileExists(atPath: uploads.appendingPathComponent("huge.bin").path))
            // A page never resumes: the host removes the cancelled upload's part (the writer does
            // it in its own task, so wait for it, with a generous deadline).
            var parts = try Self.parts(in: uploads)
            _ = try await pollUntil("the cancelled upload's part to go", within: .seconds(60)) {
                parts = try Self.parts(in: uploads)
                return parts.isEmpty
            }
            #expect(parts.isEmpty, "parts left: \(parts)")
        } catch {
            Issue.record("\(error)\n\(web.viewer.stderr.suffix(3000))")
        }
        await web.close()
    }
}
