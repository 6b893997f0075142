import Foundation
import Logging
import ZRCStorage

/// Opens the viewer page in the user's browser through a redirect file (mode 0600, in a private
/// directory), as Jupyter does: the token is in the file, never in any process's arguments,
/// where every local user could read it.
struct BrowserOpener {
    let redirect: URL

    /// Opens `url` when this process runs in a graphical session of its own (a desktop session:
    /// `XDG_SESSION_TYPE` x11 or wayland, or a desktop named, and a display to show it on). A bare
    /// X display, such as the Xvfb a host shares, is not one: a browser there would show on the
    /// very screen being viewed.
    static func openIfGraphical(url: String, logger: Logger) -> BrowserOpener? {
        let environment = ProcessInfo.processInfo.environment
        let session = environment["XDG_SESSION_TYPE"] ?? ""
        let desktop = environment["XDG_CURRENT_DESKTOP"] ?? ""
        let hasDisplay = !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        guard hasDisplay, session == "x11" || session == "wayland" || !desktop.isEmpty else {
            logger.info("not in a desktop session: open the address above in a browser")
            return nil
        }
        do {
            let directory = ZRCPaths.fromEnvironment(environment).runtimeDirectory.appendingPathComponent("web")
            let file = directory.appendingPathComponent("viewer-\(getpid()).html")
            let escaped = url.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            let page = """
                <!doctype html><html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
                <meta http-equiv="refresh" content="0;url=\(escaped)"><title>ZRC viewer</title></head>
                <body><p><a href="\(escaped)">Open the ZRC viewer</a></p></body></html>
                """
            try PrivateFile.writeAtomically(Array(page.utf8), to: file)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["xdg-open", file.absoluteString]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return BrowserOpener(redirect: file)
        } catch {
            logger.notice("could not open a browser (\(error)): open the address above in one")
            return nil
        }
    }

    func removeRedirect() {
        try? FileManager.default.removeItem(at: redirect)
    }
}
