import PropertyBased
@testable import ZRCProtocol

/// Builders of random protocol values, driven by the property checker's seeded generator so every
/// failure is reproducible from the printed seed.
enum RandomValues {
    static func bytes(_ count: Int, _ rng: inout some RandomNumberGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &rng) }
    }

    static func bytes(in range: ClosedRange<Int>, _ rng: inout some RandomNumberGenerator) -> [UInt8] {
        bytes(Int.random(in: range, using: &rng), &rng)
    }

    static func int<T: FixedWidthInteger>(_ rng: inout some RandomNumberGenerator, as _: T.Type = T.self) -> T {
        // Bias toward edges: boundaries are where encoders go wrong.
        switch Int.random(in: 0..<8, using: &rng) {
        case 0: T.min
        case 1: T.max
        case 2: 0
        default: T.random(in: .min ... .max, using: &rng)
        }
    }

    /// Mixed scripts and widths (1–4 UTF-8 bytes per scalar), sometimes exactly at the 4096-byte limit.
    static func string(_ rng: inout some RandomNumberGenerator, maxBytes: Int = WireLimits.maxStringBytes) -> String {
        let ranges: [ClosedRange<UInt32>] = [0x20...0x7E, 0x00...0x1F, 0xA0...0x24F, 0x4E00...0x9FFF, 0x1F300...0x1FAFF]
        let targetBytes: Int
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: targetBytes = 0
        case 1: targetBytes = maxBytes
        default: targetBytes = Int.random(in: 0...min(40, maxBytes), using: &rng)
        }
        var scalars = String.UnicodeScalarView()
        var used = 0
        while used < targetBytes {
            let range = ranges[Int.random(in: 0..<ranges.count, using: &rng)]
            guard let scalar = Unicode.Scalar(UInt32.random(in: range, using: &rng)) else { continue }
            let width = scalar.utf8.count
            if used + width > targetBytes {
                if targetBytes - used == 0 { break }
                scalars.append("a")
                used += 1
                continue
            }
            scalars.append(scalar)
            used += width
        }
        return String(scalars)
    }

    static func frameRect(screenWidth: UInt32, screenHeight: UInt32, _ rng: inout some RandomNumberGenerator) -> FrameRect {
        let x = UInt16.random(in: 0...UInt16(screenWidth - 1), using: &rng)
        let y = UInt16.random(in: 0...UInt16(screenHeight - 1), using: &rng)
        let maxWidth = min(UInt16(screenWidth) - x, 64)
        let maxHeight = min(UInt16(screenHeight) - y, 64)
        let width = UInt16.random(in: 1...maxWidth, using: &rng)
        let height = UInt16.random(in: 1...maxHeight, using: &rng)
        let content: FrameRect.Content
        switch Int.random(in: 0..<7, using: &rng) {
        case 0: content = .jpeg(bytes(in: 1...300, &rng))
        case 1: content = .solid(pixel: int(&rng, as: UInt32.self))
        case 2: content = .lossless(bytes(in: 1...300, &rng))
        case 4: content = .losslessFrame(bytes(in: 1...300, &rng))
        case 5: content = .losslessRestart(bytes(in: 1...300, &rng))
        case 3:
            content = .copy(sourceX: UInt16.random(in: 0...UInt16(screenWidth - UInt32(width)), using: &rng),
                            sourceY: UInt16.random(in: 0...UInt16(screenHeight - UInt32(height)), using: &rng))
        default: content = .raw(bgrx: bytes(Int(width) * Int(height) * 4, &rng))
        }
        return FrameRect(x: x, y: y, width: width, height: height, content: content)
    }

    static func frameUpdate(_ rng: inout some RandomNumberGenerator) -> FrameUpdate {
        let screenWidth = UInt32.random(in: 1...4000, using: &rng)
        let screenHeight = UInt32.random(in: 1...3000, using: &rng)
        // Rects together cover at most the screen's area (a rule of the protocol).
        var rects: [FrameRect] = []
        var drawn = 0, copied = 0
        for _ in 0..<Int.random(in: 0...5, using: &rng) {
            let rect = frameRect(screenWidth: screenWidth, screenHeight: screenHeight, &rng)
            if rect.content.isCopy { copied += Int(rect.width) * Int(rect.height) } else { drawn += Int(rect.width) * Int(rect.height) }
            guard max(drawn, copied) <= Int(screenWidth) * Int(screenHeight) else { break }
            rects.append(rect)
        }
        return FrameUpdate(
            frameID: int(&rng), captureMicros: int(&rng), encodeDoneMicros: int(&rng), sendMicros: int(&rng),
            screenWidth: screenWidth, screenHeight: screenHeight, quality: UInt8.random(in: 0...100, using: &rng),
            rects: rects)
    }

    /// A compact frame as a host sends it (solid colours without padding, which it does not carry).
    static func compactFrame(_ rng: inout some RandomNumberGenerator) -> CompactFrame {
        let update = frameUpdate(&rng)
        let rects = update.rects.map { rect in
            guard case .solid(let pixel) = rect.content else { return rect }
            return FrameRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height, content: .solid(pixel: pixel & 0xFF_FFFF))
        }
        let size = Bool.random(using: &rng) ? CompactFrame.Size(width: UInt16(update.screenWidth), height: UInt16(update.screenHeight)) : nil
        let time: UInt64 = Bool.random(using: &rng) ? int(&rng) : UInt64.random(in: 0...100_000, using: &rng)
        return CompactFrame(sendTime: Bool.random(using: &rng) ? .absolute(time) : .after(time), queueMicros: UInt64.random(in: 0...5000, using: &rng),
                            encodeMicros: UInt64.random(in: 0...50_000, using: &rng), screenSize: size, quality: update.quality, rects: rects)
    }

    static func pictureMapping(_ rng: inout some RandomNumberGenerator) -> PictureMapping {
        let width = UInt32.random(in: 1...4000, using: &rng), height = UInt32.random(in: 1...3000, using: &rng)
        let regionWidth = UInt16.random(in: 1...UInt16(width), using: &rng), regionHeight = UInt16.random(in: 1...UInt16(height), using: &rng)
        return PictureMapping(screenWidth: width, screenHeight: height,
                              regionX: UInt16.random(in: 0...UInt16(width) - regionWidth, using: &rng),
                              regionY: UInt16.random(in: 0...UInt16(height) - regionHeight, using: &rng),
                              regionWidth: regionWidth, regionHeight: regionHeight,
                              pictureWidth: UInt16.random(in: 1...regionWidth, using: &rng), pictureHeight: UInt16.random(in: 1...regionHeight, using: &rng))
    }

    static func cursorShape(_ rng: inout some RandomNumberGenerator) -> CursorShape {
        let side: ClosedRange<UInt16> = Bool.random(using: &rng) ? 1...32 : 1...256
        let width = UInt16.random(in: side, using: &rng)
        let height = UInt16.random(in: side, using: &rng)
        return CursorShape(
            shapeID: int(&rng), width: width, height: height,
            hotX: UInt16.random(in: 0..<width, using: &rng), hotY: UInt16.random(in: 0..<height, using: &rng),
            rgba: bytes(Int(width) * Int(height) * 4, &rng))
    }

    static func inputEvent(_ rng: inout some RandomNumberGenerator) -> InputEvent {
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: .pointerMove(x: int(&rng), y: int(&rng))
        case 1: .button(UInt8.random(in: 1...9, using: &rng), pressed: Bool.random(using: &rng), x: int(&rng), y: int(&rng))
        case 2: .scroll(dx: int(&rng), dy: int(&rng), x: int(&rng), y: int(&rng))
        case 3: .key(keysym: int(&rng), pressed: Bool.random(using: &rng), modifiers: KeyModifiers(rawValue: int(&rng)))
        default: .text(string(&rng))
        }
    }

    /// One message of a type chosen uniformly, so every case is covered in a 100-run check.
    static func message(_ rng: inout some RandomNumberGenerator) -> ZRCMessage {
        message(of: MessageType.allCases[Int.random(in: 0..<MessageType.allCases.count, using: &rng)], &rng)
    }

    static func message(of type: MessageType, _ rng: inout some RandomNumberGenerator) -> ZRCMessage {
        switch type {
        case .hello: .hello(protocolVersion: int(&rng), capabilities: Capabilities(rawValue: int(&rng)), agent: string(&rng))
        case .ping: .ping(id: int(&rng), sentAtMicros: int(&rng))
        case .pong: .pong(id: int(&rng), pingSentAtMicros: int(&rng), receivedAtMicros: int(&rng))
        case .close: .close(reason: CloseReason(rawValue: UInt16.random(in: 0...12, using: &rng)), text: string(&rng))
        case .error: .error(code: NoticeCode(rawValue: int(&rng)), text: string(&rng))
        case .pairRequest: .pairRequest(controllerName: string(&rng))
        case .pairAccepted: .pairAccepted(hostName: string(&rng))
        case .frameUpdate: .frameUpdate(frameUpdate(&rng))
        case .compactFrame: .compactFrame(compactFrame(&rng))
        case .frameAck: .frameAck(frameID: int(&rng), receivedMicros: int(&rng), decodedMicros: int(&rng))
        case .cursorShape: .cursorShape(cursorShape(&rng))
        case .cursorPosition: .cursorPosition(x: int(&rng), y: int(&rng), visible: Bool.random(using: &rng), shapeID: int(&rng))
        case .pictureRequest:
            Bool.random(using: &rng)
                ? .pictureRequest(.fullResolution)
                : .pictureRequest(PictureRequest(maxWidth: UInt16.random(in: 1...4000, using: &rng), maxHeight: UInt16.random(in: 1...3000, using: &rng),
                                                 regionX: int(&rng), regionY: int(&rng), regionWidth: UInt16.random(in: 1...9000, using: &rng),
                                                 regionHeight: UInt16.random(in: 1...9000, using: &rng)))
        case .pictureMapping:
            .pictureMapping(pictureMapping(&rng))
        case .input: .input(inputEvent(&rng))
        case .stats:
            .stats(
                rttMicros: int(&rng), updatesPerSecondMilli: int(&rng), bytesPerSecond: int(&rng),
                quality: UInt8.random(in: 0...100, using: &rng))
        case .linkStats:
            .linkStats(LinkStats(deliveryRate: int(&rng), roundTripMicros: int(&rng), queueMicros: int(&rng), inFlightBytes: int(&rng)))
        case .clipboard:
            // Any bytes: whether text is UTF-8 is the receiver's check, not the wire's.
            .clipboard(ClipboardContent(selection: ClipboardSelection.allCases.randomElement(using: &rng)!,
                                        mimeType: Bool.random(using: &rng) ? ClipboardContent.utf8Text : string(&rng, maxBytes: 200),
                                        data: bytes(in: 0...(Bool.random(using: &rng) ? 64 : 70_000), &rng)))
        case .clipboardRequest: .clipboardRequest(ClipboardSelection.allCases.randomElement(using: &rng)!)
        case .relayCredentials: .relayCredentials(relayCredentials(&rng, count: Int.random(in: 0...RelayCredential.maximumCount, using: &rng)))
        case .monitorLayout:
            .monitorLayout((0..<Int.random(in: 1...MonitorArea.maximumCount, using: &rng)).map { _ in
                MonitorArea(x: UInt16.random(in: 0...8000, using: &rng), y: UInt16.random(in: 0...8000, using: &rng),
                            width: UInt16.random(in: 1...8000, using: &rng), height: UInt16.random(in: 1...8000, using: &rng),
                            isPrimary: Bool.random(using: &rng), name: string(&rng, maxBytes: 40))
            })
        case .fileTerms:
            .fileTerms(FileTerms(directions: FileTerms.Directions(rawValue: UInt8.random(in: 0...3, using: &rng)),
                                 maxChunkBytes: UInt32.random(in: 1...16_384, using: &rng), maxFileBytes: UInt64.random(in: 0...(1 << 44), using: &rng),
                                 maxPathBytes: UInt16.random(in: 0...4096, using: &rng), maxDepth: UInt8.random(in: 0...32, using: &rng),
                                 maxEntries: UInt32.random(in: 0...65_536, using: &rng), maxOpenRequests: UInt8.random(in: 1...16, using: &rng),
                                 uploadDirectory: ["", "Downloads", "a/b c/é"].randomElement(using: &rng)!, rootName: string(&rng)))
        case .fileList: .fileList(requestID: int(&rng), itself: Bool.random(using: &rng), path: string(&rng))
        case .fileEntries:
            .fileEntries(requestID: int(&rng), final: Bool.random(using: &rng), entries: (0..<Int.random(in: 0...256, using: &rng)).map { _ in
                FileEntry(name: bytes(in: 1...255, &rng), kind: FileEntry.Kind.allCases.randomElement(using: &rng)!, size: int(&rng),
                          mode: UInt16.random(in: 0...0o7777, using: &rng), modifiedMicros: int(&rng))
            })
        case .fileOpen:
            .fileOpen(FileOpen(requestID: int(&rng), direction: [.upload, .download, .makeDirectory].randomElement(using: &rng)!,
                               flags: FileOpen.Flags(rawValue: UInt8.random(in: 0...3, using: &rng)), path: string(&rng), size: int(&rng),
                               mode: UInt16.random(in: 0...0o7777, using: &rng), modifiedMicros: int(&rng), offset: int(&rng)))
        case .fileReady:
            .fileReady({ () -> FileReady in
                let size: UInt64 = int(&rng)
                return FileReady(requestID: int(&rng), size: size, mode: UInt16.random(in: 0...0o7777, using: &rng), modifiedMicros: int(&rng),
                                 offset: UInt64.random(in: 0...size, using: &rng), prefixDigest: bytes(in: 32...32, &rng))
            }())
        case .fileData:
            .fileData(requestID: int(&rng), offset: UInt64.random(in: 0...(1 << 43), using: &rng), data: bytes(in: 0...16_384, &rng))
        case .fileAck: .fileAck(requestID: int(&rng), offset: int(&rng))
        case .fileEnd: .fileEnd(requestID: int(&rng), digest: bytes(in: 32...32, &rng))
        case .fileDone: .fileDone(requestID: int(&rng))
        case .fileFailed: .fileFailed(requestID: int(&rng), code: FileErrorCode(rawValue: int(&rng)), text: string(&rng))
        }
    }

    static func relayCredentials(_ rng: inout some RandomNumberGenerator, count: Int) -> [RelayCredential] {
        (0..<count).map { index in
            RelayCredential(relay: Bool.random(using: &rng) ? "198.51.100.\(index):3478" : "[2001:db8::\(index)]:3480",
                            username: "\(int(&rng) as UInt32):zrc-\(index)", password: string(&rng, maxBytes: 40) + "p",
                            expiresAt: int(&rng))
        }
    }
}

/// Generators for `propertyCheck`. They have no shrinker: inputs are rebuilt from the printed seed.
enum Generators {
    static let message = Generator<ZRCMessage, Shrink.None<ZRCMessage>> { rng in RandomValues.message(&rng) }

    static let messages = Generator<[ZRCMessage], Shrink.None<[ZRCMessage]>> { rng in
        (0..<Int.random(in: 1...20, using: &rng)).map { _ in RandomValues.message(&rng) }
    }

    static let bytes = Generator<[UInt8], Shrink.None<[UInt8]>> { rng in
        RandomValues.bytes(in: 0...400, &rng)
    }

    /// An independent seed for cutting streams, so a test can draw as many cut points as it needs.
    static let seed = Generator<UInt64, Shrink.None<UInt64>> { rng in rng.next() }
}
