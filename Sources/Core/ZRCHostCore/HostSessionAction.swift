public import ZRCProtocol

/// What the host session machine asks its driver to do.
public enum HostSessionAction: Sendable, Equatable {
    /// The controller's hello arrived: claim control (unless the grant is view-only), register the
    /// session, start streaming what both sides announced; then `controlGranted`/`controlRefused`
    /// and `startStreaming`.
    case begin(capabilities: Capabilities, agent: String)
    /// Ask the person at the host to accept this session (`viewOnly`: to watch, not control);
    /// then `approvalAnswered`, unless the approval deadline comes first.
    case askApproval(viewOnly: Bool)
    /// Inject the controller's input.
    case inject(InputEvent)
    /// The controller acknowledged a frame: the driver's frame stream forgets it too.
    case acknowledgeFrame(UInt64)
    /// Make pictures as the controller asked from now on.
    case showPicture(PictureRequest)
    /// Set the host's clipboard (the session may; the content is UTF-8 text).
    case setClipboard(ClipboardContent)
    /// Read the host's clipboard and send it (beside the message loop: an application slow to hand
    /// over its text must not hold up the session).
    case readClipboard(ClipboardSelection)
    /// Look at the pointer; send its shape when new and its position when moved; then `pointerFollowed`.
    case followPointer
    /// Read the monitor layout; send it when it changed.
    case readMonitors
    /// Send a ping to measure the path's bare round trip.
    case probe(id: UInt64, sentAtMicros: UInt64)
    /// Capture the screen and send what changed, as planned; then `sent` (or nothing when the
    /// capture showed nothing to send).
    case capture(FrameScheduler.CapturePlan)
    /// The path as measured: for `zrc-host sessions`, and for the controller when `toPeer`.
    case reportLink(LinkStats, toPeer: Bool)
    /// Send a message (notices).
    case send(ZRCMessage)
    /// List the directory at `path` beneath the transfer root (or describe the path, `itself`) and
    /// send the entries; then `listingEnded`.
    case listFiles(requestID: UInt32, path: RemotePath, itself: Bool)
    /// Open the file for an upload (its part) or a download; then `fileReady` or `fileFailed`.
    case openFile(requestID: UInt32, open: FileOpen, path: RemotePath)
    /// Append upload data to the part, beside the message loop; then `written`.
    case writeFile(requestID: UInt32, data: [UInt8])
    /// All upload data is in: check `digest`, sync, rename into place; then `committed` or `fileFailed`.
    case commitFile(requestID: UInt32, digest: [UInt8])
    /// Read `count` bytes of the download at `offset` and send them as `fileData`; then `fileChunkSent`.
    case sendFileData(requestID: UInt32, offset: UInt64, count: Int)
    /// The download's data is all sent: send `fileEnd` with its digest (or `fileFailed` when the
    /// file changed meanwhile).
    case endFile(requestID: UInt32)
    /// The request ended: close its file (an upload's part kept only when `outcome` says so).
    case closeFile(requestID: UInt32, outcome: FileOutcome)
    /// Close the connection with `reason`; the machine is closing.
    case close(CloseReason, text: String)
}
