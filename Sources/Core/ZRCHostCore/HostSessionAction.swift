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
    /// Close the connection with `reason`; the machine is closing.
    case close(CloseReason, text: String)
}
