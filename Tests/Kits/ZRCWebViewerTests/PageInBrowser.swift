import Logging
import ZRCWebTesting
import ZRCWebViewerKit

/// The page served by a `LocalPageServer` of its own and open in headless Chromium, for tests that
/// run the page's modules on data made in Swift. Everything is closed again, also on a throw.
enum PageInBrowser {
    static func run<T: Sendable>(_ body: (BrowserDriver) async throws -> T) async throws -> T {
        var logger = Logger(label: "page-in-browser")
        logger.logLevel = .warning
        let server = try await LocalPageServer.bind(host: "127.0.0.1", port: 0, logger: logger) { Array(repeating: 7, count: $0) }
        let serving = Task { try await server.run { _ in } }
        let browser: BrowserDriver
        do {
            browser = try await BrowserDriver.start()
        } catch {
            serving.cancel()
            await server.close()
            throw error
        }
        do {
            try await browser.call("open", ["url": server.pageURL, "width": 800, "height": 600])
            let result = try await body(browser)
            await browser.close()
            await server.close()
            serving.cancel()
            return result
        } catch {
            await browser.close()
            serving.cancel()
            await server.close()
            throw error
        }
    }
}
