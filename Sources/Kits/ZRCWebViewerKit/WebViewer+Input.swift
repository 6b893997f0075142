import ZRCControllerKit
import ZRCNetworking
import ZRCProtocol
import ZRCViewer
import ZRCViewerKit
import ZRCWebViewer

extension WebViewer {
    /// X's Control_L, Alt_L and Delete.
    static let ctrlAltDelete: [UInt32] = [0xFFE3, 0xFFE9, 0xFFFF]

    /// One message from the page. Only the page in charge is heard; input waits for no one but
    /// is dropped in a view-only session (and by a page that is no longer the current one).
    func handle(_ message: PageMessage, from link: PageLink) async {
        guard page === link else { return }
        switch message {
        case .drawn(let version):
            await pageDrew(version)
        case .view(let width, let height, let x, let y, let regionWidth, let regionHeight):
            let request = PictureRequest(maxWidth: max(1, width), maxHeight: max(1, height), regionX: x, regionY: y,
                                         regionWidth: regionWidth, regionHeight: regionHeight)
            state.wantedPicture = request
            await session?.requestPicture(request)
        case .command(.disconnect):
            stop(.detached)
        case .command(.takeHostClipboard):
            await perform(core.handle(.takeClipboard, now: WireClock.monotonicMicros()))
        case .command(.releaseAll):
            await releaseEverything()
        case .command(.ctrlAltDelete):
            guard !isViewOnly else { return }
            let presses = Self.ctrlAltDelete.map { InputEvent.key(keysym: $0, pressed: true, modifiers: []) }
            let releases = Self.ctrlAltDelete.reversed().map { InputEvent.key(keysym: $0, pressed: false, modifiers: []) }
            await send(presses + releases)
        case .pointer(let action, let button, let x, let y):
            guard !isViewOnly else { return }
            switch action {
            case .move:
                await send([.pointerMove(x: Int32(x), y: Int32(y))])
            case .press, .release:
                // Back and forward (8, 9) only to a host that announced them.
                if !InputEvent.basicButtons.contains(button) {
                    guard let session, await session.hostCapabilities?.contains(.extendedButtons) == true else { return }
                }
                let pressed = action == .press
                if pressed { state.heldButtons.insert(button) } else { state.heldButtons.remove(button) }
                await send([.button(button, pressed: pressed, x: Int32(x), y: Int32(y))])
            }
            state.lastPointer = (Int32(x), Int32(y))
        case .wheel(let dx, let dy, let x, let y):
            guard !isViewOnly else { return }
            await send([.scroll(dx: dx, dy: dy, x: Int32(x), y: Int32(y))])
        case .key(let pressed, let key, let code, let modifiers):
            await perform(core.handle(.browserKey(pressed: pressed, key: key, code: code, modifiers: modifiers), now: WireClock.monotonicMicros()))
        case .text(let text):
            guard !isViewOnly else { return }
            await send(InputEvent.textEvents(for: text))
        case .files(let request):
            // Beside the page's input, never in front of it: a listing waits for the host.
            Task { await self.handleFiles(request) }
        case .clipboard(let text):
            guard !isViewOnly, core.clipboardAvailable, let session else { return }
            try? await session.send(.clipboard(.text(text)))
        }
    }

    /// Lets go of every key and button the page held (it lost focus, or went away).
    func releaseEverything() async {
        let (x, y) = state.lastPointer
        let buttons = state.heldButtons.sorted().map { InputEvent.button($0, pressed: false, x: x, y: y) }
        state.heldButtons = []
        await perform(core.handle(.releaseKeys, now: WireClock.monotonicMicros()))
        await send(buttons)
    }

    func send(_ events: [InputEvent]) async {
        guard let session, !events.isEmpty else { return }
        for event in events {
            do {
                try await session.send(.input(event))
            } catch {
                return
            }
        }
    }
}
