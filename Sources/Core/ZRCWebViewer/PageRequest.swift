/// The parts of an HTTP request the gate looks at, taken from the server's parsed head.
public struct PageRequest: Sendable {
    public var method: String
    /// The request target without its query (the page never uses one).
    public var path: String
    /// Header fields in order, names as sent.
    public var headers: [(name: String, value: String)]
    /// The head's size as received (request line and fields).
    public var headBytes: Int
    /// `Content-Length`, or 0.
    public var declaredBodyBytes: Int

    public init(method: String, target: String, headers: [(name: String, value: String)], headBytes: Int? = nil) {
        self.method = method
        self.path = String(target.prefix { $0 != "?" && $0 != "#" })
        self.headers = headers
        self.headBytes = headBytes ?? (method.utf8.count + target.utf8.count + 12
            + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 })
        let lengths = headers.filter { $0.name.lowercased() == "content-length" }.map(\.value)
        self.declaredBodyBytes = lengths.count == 1 ? Int(lengths[0]) ?? Int.max : (lengths.isEmpty ? 0 : Int.max)
    }

    /// Every value of the header `name` (case-insensitive).
    public func values(of name: String) -> [String] {
        let wanted = name.lowercased()
        return headers.filter { $0.name.lowercased() == wanted }.map(\.value)
    }
}

/// The fixed paths of the viewer's local server.
public enum PagePaths {
    /// POST with the token in `tokenHeader`: answered with the cookie.
    public static let session = "/session"
    /// The WebSocket.
    public static let socket = "/socket"
    public static let tokenHeader = "x-zrc-token"
    /// The app's API calls (`zrc-ctl app` only): `POST /api/NAME` with a JSON body.
    public static let apiPrefix = "/api/"
    /// `POST /files/upload/TICKET`: the body is the file the page's `fileUpload` announced.
    public static let uploadPrefix = "/files/upload/"
    /// `GET /files/download/TICKET`: the file the page's `fileDownload` asked for, as an attachment.
    public static let downloadPrefix = "/files/download/"
}

/// Lower-case hex for tokens and cookies, both ways (ZRCProtocol's `Hex` only encodes).
public enum TokenHex {
    public static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// nil unless `text` is an even number of hex digits (at most 64).
    public static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0, utf8.count <= 64 else { return nil }
        var out: [UInt8] = []
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
