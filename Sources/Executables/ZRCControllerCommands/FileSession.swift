import Foundation
import ZRCCommandSupport
import ZRCControllerKit
import ZRCProtocol

/// A session for the file commands: connected like every command (direct, ICE, relay), announcing
/// `fileTransfer`, its terms awaited.
struct FileSession {
    let session: ControllerSession
    let terms: FileTerms

    static func open(_ options: ControllerOptions, host: String) async throws -> FileSession {
        let context = try ControllerContext.load(options)
        let controller = try context.controller(wantsFiles: true)
        let session: ControllerSession
        do {
            session = try await controller.connect(to: host)
        } catch {
            throw CommandError(error)
        }
        do {
            return FileSession(session: session, terms: try await session.files.waitForTerms())
        } catch {
            await session.close(text: "no file transfer")
            throw commandError(error)
        }
    }

    func close() async {
        await session.close(text: "file transfer done")
        _ = await session.waitUntilEnded()
    }

    static func commandError(_ error: any Error) -> CommandError {
        if let error = error as? CommandError { return error }
        guard let error = error as? FileTransferError else { return CommandError(.failure, "\(error)") }
        switch error.kind {
        case .refused, .host(.refused): return CommandError(.refused, error.text)
        case .connectionLost: return CommandError(.unreachable, error.text)
        case .cancelled: return CommandError(.cancelled, "cancelled")
        case .host, .local, .limit: return CommandError(.failure, error.text)
        }
    }

    static func json(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    static func isoDate(_ micros: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: Double(micros) / 1_000_000))
    }
}
