/// One file of the browser viewer's page, compiled in.
public struct PageFile: Sendable {
    public let contentType: String
    public let bytes: [UInt8]

    init(contentType: String, text: String) {
        self.contentType = contentType
        bytes = Array(text.utf8)
    }
}

/// The browser viewer's page: HTML, CSS and JavaScript modules from `page/`, embedded by the
/// EmbedPage build plugin (no CDN, no files beside the binary, no Node at build or run time).
public enum PageFiles {
    /// Every file by URL path; "/" is the page itself.
    public static var all: [String: PageFile] { embedded }
    /// The app's page (`zrc-ctl app`), served at `/` by the app's server.
    public static let appEntry = "/app.html"
}
