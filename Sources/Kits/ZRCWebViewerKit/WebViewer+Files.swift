import ZRCControllerKit
import ZRCFiles
import ZRCProtocol
import ZRCWebViewer

/// The page's file panel and drops: listings, uploads into the host's upload directory and
/// downloads through the browser's own download manager, all through the session's file client
/// (so the host's rules, limits and checks apply as for `zrc-ctl cp`).
extension WebViewer {
    /// The session's file terms reach the page once the host sent them.
    func watchFileTerms(_ session: ControllerSession) {
        Task {
            do {
                let terms = try await session.files.waitForTerms()
                guard self.session === session else { return }
                files.terms = terms
                sendFileTerms()
            } catch {
                guard self.session === session else { return }
                files.terms = nil
                sendFiles(PageFileDesk.event("terms", ["upload": false, "download": false, "reason": "\(error)"]))
            }
        }
    }

    func sendFileTerms() {
        guard let terms = files.terms else { return }
        sendFiles(PageFileDesk.event("terms", [
            "upload": terms.directions.contains(.upload), "download": terms.directions.contains(.download),
            "uploadDirectory": TerminalSafeText.sanitized(terms.uploadDirectory), "root": TerminalSafeText.sanitized(terms.rootName),
            "maxFileBytes": terms.maxFileBytes,
        ]))
    }

    func sendFiles(_ json: [UInt8]) {
        page?.send(.files(json))
    }

    private func failed(_ tag: UInt32, _ text: String) {
        files.progressSent[tag] = nil
        sendFiles(PageFileDesk.event("failed", tag: tag, ["error": TerminalSafeText.sanitized(text)]))
    }

    /// A file request from the page.
    func handleFiles(_ request: PageFileRequest) async {
        switch request {
        case .list(let tag, let text):
            guard let (session, _) = fileSession(tag, needs: nil), let path = parsed(text, tag: tag) else { return }
            do {
                let entries = try await session.files.list(path)
                sendFiles(PageFileDesk.event("listing", tag: tag, ["path": path.text, "entries": PageFileDesk.entries(entries)]))
            } catch {
                failed(tag, "\(error)")
            }
        case .upload(let tag, let replace, let size, let modifiedMillis, let text):
            await prepareUpload(tag, replace: replace, size: size, modifiedMillis: modifiedMillis, text: text)
        case .download(let tag, let text):
            await prepareDownload(tag, text: text)
        case .cancel(let tag):
            files.dropTickets(tag: tag)
            switch files.running.removeValue(forKey: tag) {
            case .upload(let pipe)?: await pipe.fail(FileSystemError(.cancelled, "cancelled in the browser"))
            case .download(let stream)?: stream.fail(FileSystemError(.cancelled, "cancelled in the browser"))
            case nil: break
            }
        }
    }

    /// The session and terms when `direction` (nil: either) is allowed; otherwise the page hears why.
    private func fileSession(_ tag: UInt32, needs direction: FileTerms.Directions?) -> (ControllerSession, FileTerms)? {
        guard let session, let terms = files.terms else {
            failed(tag, "not connected to the host, or it transfers no files")
            return nil
        }
        if let direction, !terms.directions.contains(direction) {
            failed(tag, terms.directions.isEmpty ? "this session may transfer no files (view-only, or the host turned it off)"
                                                 : "the host does not allow \(direction == .upload ? "uploads" : "downloads")")
            return nil
        }
        return (session, terms)
    }

    private func parsed(_ text: String, tag: UInt32) -> RemotePath? {
        do {
            return try RemotePath(parsing: text)
        } catch {
            failed(tag, error.description)
            return nil
        }
    }

    private func prepareUpload(_ tag: UInt32, replace: Bool, size: UInt64, modifiedMillis: Int64, text: String) async {
        guard let (session, terms) = fileSession(tag, needs: .upload),
              let relative = parsed(text, tag: tag), let directory = parsed(terms.uploadDirectory, tag: tag) else { return }
        guard relative.name != nil else { return failed(tag, "an upload needs a file name") }
        guard size <= terms.maxFileBytes else { return failed(tag, "\(size) bytes is more than the host's \(terms.maxFileBytes) per file") }
        guard directory.components.count + relative.components.count <= FileTransferLimits.maxDepth else {
            return failed(tag, "the path is deeper than \(FileTransferLimits.maxDepth) components")
        }
        let remote = RemotePath(components: directory.components + relative.components)
        do {
            // Asked first so the page can offer to replace before sending a byte (the host still
            // refuses to replace without the flag, should the file appear meanwhile).
            if !replace, try await exists(remote, session: session) {
                return sendFiles(PageFileDesk.event("exists", tag: tag, ["path": remote.text]))
            }
            if remote.parent != directory { try await session.files.makeDirectory(remote.parent) }
        } catch {
            return failed(tag, "\(error)")
        }
        let ticket = files.issue(.init(tag: tag, remote: remote, kind: .upload(size: size, modifiedMicros: modifiedMillis &* 1000, replace: replace),
                                       issued: .now))
        sendFiles(PageFileDesk.event("ticket", tag: tag, ["ticket": ticket, "path": remote.text]))
    }

    private func exists(_ remote: RemotePath, session: ControllerSession) async throws -> Bool {
        do {
            _ = try await session.files.list(remote, itself: true)
            return true
        } catch let error as FileTransferError where error.kind == .host(.notFound) {
            return false
        }
    }

    private func prepareDownload(_ tag: UInt32, text: String) async {
        guard let (session, _) = fileSession(tag, needs: .download), let remote = parsed(text, tag: tag) else { return }
        guard let name = remote.name else { return failed(tag, "the transfer root is a directory, not a file") }
        let entry: FileEntry
        do {
            guard let first = try await session.files.list(remote, itself: true).first else { return failed(tag, "\(remote): not found") }
            entry = first
        } catch {
            return failed(tag, "\(error)")
        }
        guard entry.kind == .file else { return failed(tag, "\(remote) is a \(entry.kind), not a file") }
        let ticket = files.issue(.init(tag: tag, remote: remote, kind: .download(name: name, size: entry.size), issued: .now))
        sendFiles(PageFileDesk.event("ticket", tag: tag, ["ticket": ticket, "name": name.text, "size": entry.size]))
    }

    // MARK: The server's side

    /// The body of an upload ticket's request is coming: the transfer starts.
    func acceptUpload(ticket value: String, declaredBytes: Int) -> PageUploadPipe? {
        guard let ticket = files.redeem(value, now: .now), case .upload(let size, let modified, let replace) = ticket.kind else { return nil }
        guard UInt64(declaredBytes) == size, let session else {
            failed(ticket.tag, "the browser sends \(declaredBytes) bytes, not the \(size) announced")
            return nil
        }
        let pipe = PageUploadPipe(size: size, modifiedMicros: modified)
        files.running[ticket.tag] = .upload(pipe)
        let tag = ticket.tag
        Task {
            let result: Result<Void, FileTransferError>
            do {
                try await session.files.upload(pipe, to: ticket.remote, replace: replace, resume: false,
                                               progress: { done in Task { await self.progressed(tag, done: done, total: size) } })
                result = .success(())
            } catch {
                result = .failure(error as? FileTransferError ?? FileTransferError(.connectionLost, "\(error)"))
            }
            await pipe.finished(result)
            self.transferEnded(tag, result)
        }
        return pipe
    }

    /// The browser asked for a download ticket's file: the transfer starts, into the response.
    func acceptDownload(ticket value: String) -> PageDownload? {
        guard let ticket = files.redeem(value, now: .now), case .download(let name, let size) = ticket.kind, let session else { return nil }
        let stream = PageDownloadStream()
        files.running[ticket.tag] = .download(stream)
        let tag = ticket.tag
        Task {
            let result: Result<Void, FileTransferError>
            do {
                try await session.files.download(ticket.remote, to: stream, size: size, replace: false, resume: false,
                                                 progress: { done in Task { await self.progressed(tag, done: done, total: size) } })
                result = .success(())
            } catch {
                stream.fail(FileSystemError(.cancelled, "\(error)"))
                result = .failure(error as? FileTransferError ?? FileTransferError(.connectionLost, "\(error)"))
            }
            self.transferEnded(tag, result)
        }
        return PageDownload(name: name, size: size, stream: stream)
    }

    private func progressed(_ tag: UInt32, done: UInt64, total: UInt64) {
        guard files.running[tag] != nil, files.shouldReport(tag, done: done, total: total, now: .now) else { return }
        sendFiles(PageFileDesk.event("progress", tag: tag, ["done": done, "total": total]))
    }

    private func transferEnded(_ tag: UInt32, _ result: Result<Void, FileTransferError>) {
        files.running[tag] = nil
        switch result {
        case .success:
            files.progressSent[tag] = nil
            sendFiles(PageFileDesk.event("done", tag: tag))
        case .failure(let error):
            failed(tag, error.text)
        }
    }
}
