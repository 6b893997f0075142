/// Headers on every answer of the viewer's local server: a Content-Security-Policy that allows
/// the page's own scripts and styles and its own WebSocket and nothing else (no inline script, no
/// other host), no framing, no sniffing, no Referer, nothing cached, and no CORS header at all.
public enum PageSecurityHeaders {
    public static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    public static let all: [(String, String)] = [
        ("Content-Security-Policy", contentSecurityPolicy),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", "no-store"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
    ]
}
