import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import ZRCControllerKit
import ZRCFiles
import ZRCProtocol
import ZRCWebViewer

/// The page's file transfers over plain HTTP, so the browser streams an upload from disk and saves
/// a download with its own download manager: `POST /files/upload/TICKET` and
/// `GET /files/download/TICKET`, each with a ticket the viewer handed the page over its socket.
extension LocalPageServer {
    typealias Outbound = NIOAsyncChannelOutboundWriter<HTTPPart<HTTPResponseHead, ByteBuffer>>

    /// An upload's head arrived: the gate and the ticket decide; nil when it was answered already.
    func startUpload(_ head: HTTPRequestHead, outbound: Outbound) async throws -> PageUploadPipe? {
        let request = PageRequest(head)
        let random = randomBytes
        let decision = gateBox.gate.withLock { $0?.decide(request, freshCookie: { random(16) }) } ?? .refuse(status: 503, reason: .notFound)
        switch decision {
        case .upload(let ticket):
            guard let viewer = await fileViewer(), let pipe = await viewer.acceptUpload(ticket: ticket, declaredBytes: request.declaredBodyBytes) else {
                try await respondFileJSON(outbound, status: 404, ["error": "no such upload (its ticket was used, or the viewer moved on)"], head: head)
                return nil
            }
            return pipe
        case .refuse(let status, let reason):
            logOnce(reason, "refused an upload: \(reason.text)")
            try await respond(outbound, status: status, keepAlive: false, head: head)
            return nil
        case .file, .issueCookie, .upgrade, .api, .download:
            try await respond(outbound, status: 400, keepAlive: false, head: head)
            return nil
        }
    }

    /// A part of an upload's body: into the pipe (waiting while the upload is behind). False when
    /// the upload failed (answered) and the connection should close.
    func streamUpload(_ buffer: ByteBuffer, into pipe: PageUploadPipe, outbound: Outbound, head: HTTPRequestHead?) async throws -> Bool {
        do {
            try await pipe.put(Array(buffer.readableBytesView))
            return true
        } catch {
            try await respondFileJSON(outbound, status: 409, ["error": error.text], head: head)
            return false
        }
    }

    /// The upload's body ended: answered once the file is in place on the host, or why not.
    func finishUpload(_ pipe: PageUploadPipe, outbound: Outbound, head: HTTPRequestHead?) async throws {
        await pipe.bodyEnded(complete: true)
        switch await pipe.result() {
        case .success: try await respondFileJSON(outbound, status: 200, ["done": "true"], head: head)
        case .failure(let error): try await respondFileJSON(outbound, status: 409, ["error": error.text], head: head)
        }
    }

    /// Streams a download to the browser as an attachment. A transfer that fails stops the
    /// response short of its Content-Length, so the browser marks the download failed.
    func serveDownload(_ ticket: String, head: HTTPRequestHead, outbound: Outbound) async throws {
        guard let viewer = await fileViewer(), let download = await viewer.acceptDownload(ticket: ticket) else {
            try await respond(outbound, status: 404, keepAlive: false, head: head)
            return
        }
        var headers = HTTPHeaders(PageSecurityHeaders.all)
        headers.add(name: "Content-Type", value: "application/octet-stream")
        headers.add(name: "Content-Length", value: "\(download.size)")
        headers.add(name: "Content-Disposition", value: Self.attachment(download.name))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Connection", value: "close")
        try await outbound.write(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers)))
        do {
            for try await chunk in download.stream.chunks {
                try await outbound.write(.body(ByteBuffer(bytes: chunk)))
                download.stream.consumed(chunk.count)
            }
        } catch {
            // Not ended: the connection closes mid-body and the browser's download fails.
            download.stream.fail(FileSystemError(.cancelled, "the browser's download stopped"))
            throw error
        }
        try await outbound.write(.end(nil))
    }

    func respondFileJSON(_ outbound: Outbound, status: Int, _ fields: [String: String], head: HTTPRequestHead?) async throws {
        let json = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])).map { Array($0) } ?? Array("{}".utf8)
        try await respond(outbound, status: status, contentType: "application/json", body: json, keepAlive: false, head: head)
    }

    /// `Content-Disposition` for `name` (a checked `FileName`: no controls, no `/`): an ASCII
    /// fallback and the exact name per RFC 6266 / 5987.
    static func attachment(_ name: FileName) -> String {
        let fallback = String(name.text.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && scalar != "\"" && scalar != "\\" && scalar.value >= 0x20 ? Character(scalar) : "_"
        })
        var encoded = ""
        for byte in name.text.utf8 {
            let safe = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || "!#$&+-.^_`|~".utf8.contains(byte)
            encoded += safe ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }
        return "attachment; filename=\"\(fallback)\"; filename*=UTF-8''\(encoded)"
    }
}

/// What the viewer hands the server for a download ticket.
struct PageDownload: Sendable {
    let name: FileName
    let size: UInt64
    let stream: PageDownloadStream
}
