import Testing
import ZRCFrames
import ZRCHostCore
import ZRCProtocol

/// How the host's file desk ends an upload the controller stopped: the part stays for a resume,
/// unless the controller discarded the upload (a browser's cancel, which never resumes).
@Suite struct FileTransferDeskTests {
    static let terms = FileTerms(directions: .both, uploadDirectory: "Downloads", rootName: "home")

    /// A desk with upload 7 opened and ready, receiving.
    static func receiving() -> (FileTransferDesk, FramePacer) {
        var desk = FileTransferDesk(policy: .init(terms: terms))
        var pacer = FramePacer()
        let open = FileOpen(requestID: 7, direction: .upload, path: "Downloads/big.iso", size: 1 << 20)
        _ = desk.handle(.fileOpen(open), controlling: true, pacer: &pacer, now: 0)
        _ = desk.fileReady(FileReady(requestID: 7, size: 1 << 20, mode: 0o644, modifiedMicros: 0))
        _ = desk.handle(.fileData(requestID: 7, offset: 0, data: [UInt8](repeating: 1, count: 4096)), controlling: true, pacer: &pacer, now: 1)
        return (desk, pacer)
    }

    @Test(arguments: [(FileErrorCode.cancelled, true), (.discarded, false), (.ioError, true), (FileErrorCode(rawValue: 999), true)])
    func aStoppedUploadKeepsItsPartUnlessDiscarded(code: FileErrorCode, keeps: Bool) {
        var (desk, pacer) = Self.receiving()
        let actions = desk.handle(.fileFailed(requestID: 7, code: code, text: "stopped"), controlling: true, pacer: &pacer, now: 2)
        #expect(actions == [.closeFile(requestID: 7, outcome: .cancelled(keepPart: keeps))])
        #expect(desk.handle(.fileFailed(requestID: 7, code: code, text: "again"), controlling: true, pacer: &pacer, now: 3).isEmpty,
                "the request is over")
    }
}
