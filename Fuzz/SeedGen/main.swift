// Writes the committed seed corpus, Fuzz/Seeds/TARGET/NAME: a few valid inputs per target, laid
// out as each harness reads them, so the fuzzer starts from inputs that get past the first checks.
// Run through `Tools/fuzz.sh seeds`; the seeds change only when a layout does. Only the message and
// frame seeds carry JPEGs: the others stay small enough for the smoke table of FuzzRegressionTests.
import Foundation
import ZRCFrames
import ZRCJPEG
@testable import ZRCProtocol
import ZRCZstd

let root = URL(fileURLWithPath: CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "Fuzz/Seeds")
var seeds: [String: [(name: String, bytes: [UInt8])]] = [:]

@MainActor func seed(_ target: String, _ name: String, _ bytes: [UInt8]) { seeds[target, default: []].append((name, bytes)) }
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.filter(\.isHexDigit))
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}
func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
func lengthPrefixed(_ pieces: [[UInt8]]) -> [UInt8] { pieces.flatMap { u16($0.count) + $0 } }

// MARK: messages, one of each type and rect encoding

func jpeg(width: Int, height: Int, subsampling: JPEGSubsampling) -> [UInt8] {
    let pixels = (0..<(width * height * 4)).map { UInt8(truncatingIfNeeded: $0 &* 37) }
    return try! pixels.withUnsafeBytes { bytes in
        try JPEGEncoder().encode(bgrx: bytes, bytesPerRow: width * 4, region: PixelRect(x: 0, y: 0, width: width, height: height),
                                 quality: 60, subsampling: subsampling)
    }
}

func update(_ rects: [FrameRect], width: UInt32 = 64, height: UInt32 = 32, quality: UInt8 = 60) -> ZRCMessage {
    .frameUpdate(FrameUpdate(frameID: 1, captureMicros: 2, encodeDoneMicros: 3, sendMicros: 4, screenWidth: width,
                             screenHeight: height, quality: quality, rects: rects))
}

let jpegUpdates: [(String, ZRCMessage)] = [
    ("jpeg-420", update([FrameRect(x: 8, y: 8, width: 16, height: 16, content: .jpeg(jpeg(width: 16, height: 16, subsampling: .yuv420)))])),
    ("jpeg-444", update([FrameRect(x: 0, y: 0, width: 24, height: 8, content: .jpeg(jpeg(width: 24, height: 8, subsampling: .yuv444)))])),
    ("mixed", update([
        FrameRect(x: 0, y: 0, width: 8, height: 8, content: .jpeg(jpeg(width: 8, height: 8, subsampling: .yuv420))),
        FrameRect(x: 8, y: 0, width: 4, height: 4, content: .solid(pixel: 0x00FF_8000)),
        FrameRect(x: 12, y: 0, width: 2, height: 2, content: .raw(bgrx: Array(0..<16))),
    ])),
]
/// Lossless rects as a host sends them: encoding 4 (a chunk of the session's zstd stream, the
/// first of a fresh stream here), encoding 6 (a zstd frame of its own) and encoding 7 (a restart:
/// the first chunk of a new stream).
let losslessUpdates: [(String, ZRCMessage)] = {
    var picture = PixelBuffer(width: 16, height: 8)
    picture.fill(PixelRect(x: 0, y: 0, width: 8, height: 8), rgb: 0x203040)
    picture.fill(PixelRect(x: 8, y: 0, width: 8, height: 8), rgb: 0xF0E0D0)
    let payload = LosslessPixels.payload(picture, rect: PixelRect(x: 0, y: 0, width: 16, height: 8))
    let chunk = try! ZstdStreamCompressor().compress(payload)
    let frame = try! ZstdFrameCompressor().compress(payload)
    let other = try! ZstdStreamCompressor()
    let restarted = [try! other.compress(payload), try! other.compress(payload)]
    return [
        ("lossless", update([FrameRect(x: 4, y: 4, width: 16, height: 8, content: .lossless(chunk))], quality: 0)),
        ("lossless-frame", update([FrameRect(x: 4, y: 4, width: 16, height: 8, content: .losslessFrame(frame))], quality: 0)),
        // Encoding 7: a chunk of one stream, then a restart (a new stream's first chunk) and a chunk continuing it.
        ("lossless-restart", update([FrameRect(x: 4, y: 4, width: 16, height: 8, content: .lossless(chunk)),
                                     FrameRect(x: 4, y: 4, width: 16, height: 8, content: .losslessRestart(restarted[0])),
                                     FrameRect(x: 4, y: 4, width: 16, height: 8, content: .lossless(restarted[1]))], quality: 0)),
    ]
}()

/// Compact frames (0x18): the spec's keystroke (relative to an update before it) and two that
/// stand alone (absolute time, screen size given), which the frame target can apply.
let compactFrames: [(String, ZRCMessage)] = [
    ("compact-keystroke", .compactFrame(CompactFrame(sendTime: .after(62_450), queueMicros: 50, encodeMicros: 400, screenSize: nil, quality: 0,
                                                     rects: [FrameRect(x: 100, y: 200, width: 7, height: 13, content: .lossless(Array(0xC0...0xCB)))]))),
    ("compact-solid", .compactFrame(CompactFrame(sendTime: .absolute(1_000_000), queueMicros: 50, encodeMicros: 400,
                                                 screenSize: .init(width: 640, height: 480), quality: 0,
                                                 rects: [FrameRect(x: 1, y: 2, width: 3, height: 4, content: .solid(pixel: 0xFF8000)),
                                                         FrameRect(x: 0, y: 0, width: 64, height: 31, content: .copy(sourceX: 0, sourceY: 1))]))),
    ("compact-raw", .compactFrame(CompactFrame(sendTime: .absolute(7), queueMicros: 1, encodeMicros: 2, screenSize: .init(width: 2, height: 2),
                                               quality: 0, rects: [FrameRect(x: 0, y: 0, width: 2, height: 2, content: .raw(bgrx: Array(0..<16)))]))),
]

let messages: [(String, ZRCMessage)] = [
    ("hello", .hello(protocolVersion: 1, capabilities: [.jpegRects, .cursorShape], agent: "zrc-ctl/0.1 (linux)")),
    ("ping", .ping(id: 1, sentAtMicros: 258)),
    ("pong", .pong(id: 1, pingSentAtMicros: 258, receivedAtMicros: 300)),
    ("close", .close(reason: CloseReason(rawValue: 4), text: "bye")),
    ("error", .error(code: .inputRefused, text: "view-only")),
    ("pair-request", .pairRequest(controllerName: "laptop")),
    ("pair-accepted", .pairAccepted(hostName: "studio")),
    ("solid", update([FrameRect(x: 1, y: 2, width: 3, height: 4, content: .solid(pixel: 0xFF8000))], width: 640, height: 480, quality: 0)),
    ("raw", update([FrameRect(x: 0, y: 0, width: 2, height: 2, content: .raw(bgrx: Array(0..<16)))], quality: 0)),
    ("frame-ack", .frameAck(frameID: 1, receivedMicros: 2, decodedMicros: 3)),
    ("cursor-shape", .cursorShape(CursorShape(shapeID: 1, width: 2, height: 2, hotX: 1, hotY: 0, rgba: Array(0..<16)))),
    ("cursor-position", .cursorPosition(x: -1, y: 20, visible: true, shapeID: 1)),
    ("input-move", .input(.pointerMove(x: 10, y: 20))),
    ("input-button", .input(.button(1, pressed: false, x: -1, y: 2))),
    ("input-scroll", .input(.scroll(dx: 0, dy: -1, x: 5, y: 5))),
    ("input-key", .input(.key(keysym: 0xFF0D, pressed: true, modifiers: [.shift, .control]))),
    ("input-text", .input(.text("héllo ✓"))),
    ("stats", .stats(rttMicros: 1500, updatesPerSecondMilli: 30000, bytesPerSecond: 1 << 20, quality: 80)),
    ("link-stats", .linkStats(LinkStats(deliveryRate: 2_500_000, roundTripMicros: 20_000, queueMicros: 3_000, inFlightBytes: 65_536))),
    ("picture-request", .pictureRequest(PictureRequest(maxWidth: 1280, maxHeight: 720, regionX: 0, regionY: 0, regionWidth: 1920,
                                                       regionHeight: 1080))),
    ("picture-mapping", .pictureMapping(PictureMapping(screenWidth: 1920, screenHeight: 1080, regionX: 0, regionY: 0, regionWidth: 1920,
                                                       regionHeight: 1080, pictureWidth: 1280, pictureHeight: 720))),
    ("clipboard", .clipboard(.text("copied ✓\nsecond line"))),
    ("clipboard-primary", .clipboard(.text("x", selection: .primary))),
    ("clipboard-request", .clipboardRequest(.clipboard)),
    ("relay-credentials", .relayCredentials([RelayCredential(relay: "198.51.100.7:3478", username: "1764374400:zrc-0a1b2c3d4e5f",
                                                             password: "VGhpcyBpcyBhIHBhc3N3b3Jk", expiresAt: 1_764_374_400)])),
    ("copy", update([FrameRect(x: 0, y: 0, width: 64, height: 31, content: .copy(sourceX: 0, sourceY: 1))], quality: 0)),
    ("monitor-layout", .monitorLayout([MonitorArea(x: 0, y: 0, width: 1920, height: 1080, isPrimary: true, name: "HDMI-1"),
                                       MonitorArea(x: 1920, y: 0, width: 1280, height: 1024, isPrimary: false, name: "DP-2")])),
    ("input-button-9", .input(.button(9, pressed: true, x: 10, y: 20))),
] + jpegUpdates + losslessUpdates + compactFrames

for (name, message) in messages { seed("message", name, message.encode()) }

// MARK: records and fragments

let ping = ZRCMessage.ping(id: 1, sentAtMicros: 258).encode()
func transportRecords(_ message: [UInt8], fragmentSize: Int = WireLimits.maxTransportPlaintext) -> [UInt8] {
    MessageFragmenter(maxPlaintextLength: fragmentSize).fragments(of: message)
        .flatMap { Record(type: .transport, body: $0).encode() }
}
seed("record", "ping-one-feed", [0] + transportRecords(ping))
seed("record", "hello-chunks-of-3", [3] + transportRecords(messages[0].1.encode(), fragmentSize: 9))
seed("record", "schema-example", [7] + hex("02 00 00 00 26") + [UInt8](repeating: 0x5A, count: 38))
seed("record", "handshake-reject-partial",
     [1] + Record(type: .handshake, body: [2] + Array(repeating: 7, count: 48)).encode()
        + Record(type: .reject, body: HandshakeRejection.busy.body).encode() + [0x02, 0, 0, 1])

for (index, message) in [ping, messages[3].1.encode(), messages.first { $0.0 == "raw" }!.1.encode()].enumerated() {
    seed("reassembler", "single-\(index)", [UInt8(index)] + lengthPrefixed(MessageFragmenter().fragments(of: message)))
    seed("reassembler", "fragments-\(index)", [3] + lengthPrefixed(MessageFragmenter(maxPlaintextLength: 8).fragments(of: message)))
}

// MARK: invites

let invite = try! Invite(
    hostKey: try! NoisePublicKey(bytes: Array(0..<32)), inviteID: try! InviteID(bytes: Array(0xA0...0xAF)),
    secret: SecretBytes(Array(0xF0...0xFF)), expiresAt: 1_767_225_600,
    addresses: [InviteAddress(host: "192.168.1.20", port: 47_800), InviteAddress(host: "fe80::1", port: 1)], hostName: "studio")
seed("invite", "text", [0] + Array(invite.text.utf8))
seed("invite", "text-spaced-upper", [0] + Array(invite.text.uppercased().split(by: 16).joined(separator: " \n").utf8))
// The binary mode wants the fields only: header and checksum are added by the harness.
let binary = try! Base32.decodeLeniently(Array(invite.text.utf8).dropFirst(Invite.textPrefix.count)).bytes
seed("invite", "fields", [1] + Array(binary.dropFirst(4).dropLast(4)))

// MARK: handshakes (TransparentCrypto, as the harness uses it)

for pairing in [false, true] {
    let mode = pairing ? "pair" : "session"
    var controller = try! HandshakeFixture.controller(pairing: pairing)
    let firstFlight = controller.firstFlight
    var host = HostHandshake()
    let initiation = try! host.receive(firstFlight)!
    var responder = try! host.respond(localStatic: HandshakeFixture.hostKey, psk: HandshakeFixture.psk(for: initiation),
                                      crypto: TransparentCrypto())
    let reply = HostHandshake.preamble + (try! responder.accept(HandshakeFixture.response))
    _ = try! controller.receive(reply)
    var hostChannel = try! responder.establish()
    var controllerChannel = try! controller.establish()
    let toHost = try! controllerChannel.seal(messages[0].1) + (try! controllerChannel.seal(.input(.text("typed"))))
    let toController = try! hostChannel.seal(messages.first { $0.0 == "solid" }!.1) + (try! hostChannel.seal(messages.first { $0.0 == "raw" }!.1))
    seed("handshake", "host-\(mode)", [4] + u16(firstFlight.count) + firstFlight + toHost)
    seed("handshake", "controller-\(mode)", [pairing ? 6 : 5] + u16(reply.count) + reply + toController)
    seed("handshake", "record-1-\(mode)", [2] + initiation.encode())
}
seed("handshake", "payload-1-session", [0] + hex("02 00 00 00 00 00 00 00 05 00 00 00 01 00 00"))
seed("handshake", "payload-1-pair",
     [0] + HandshakeInitPayload(purpose: .pair(inviteID: HandshakeFixture.inviteID), timestampMicros: 1, agent: "c").encode())
seed("handshake", "payload-2", [1] + hex("00 01 00 00 00 00 00 00 00 ab 00 00 00 01 00 01 68"))
seed("handshake", "reject", [3] + HandshakeRejection.clockSkew.body)

// MARK: terminal input (config byte: chunk size, flushes, pixel mouse, key releases)

let terminalInputs: [(String, UInt8, String)] = [
    ("mixed", 0, "ab\u{1B}[1;5C✓\u{1B}[<0;10;20M\u{1B}[<0;10;20m\u{1B}[200~pa\u{1B}ste\u{1B}[201~\u{1B}[97;5u\u{1B}OPé\r"),
    ("mixed-chunked", 0x25, "x\u{1B}\u{1B}[A\u{1B}[3~\u{1B}[15;2~\u{1B}[Z\u{1B}a\u{7F}\u{3}"),
    ("kitty-keys", 0x80, "\u{1B}[97;1:1u\u{1B}[97;1:2u\u{1B}[97;1:3u\u{1B}[13u\u{1B}[57399u\u{1B}[1;5:3D"),
    ("mouse-pixels", 0x40, "\u{1B}[<0;100;50M\u{1B}[<32;120;60M\u{1B}[<0;130;70m\u{1B}[<64;10;10M\u{1B}[<67;10;10M\u{1B}[<35;1;1M"),
    ("replies", 0, "\u{1B}[?62;4;22c\u{1B}[6;20;10t\u{1B}[4;900;1600t\u{1B}[?2026;2$y\u{1B}[?15u"
        + "\u{1B}_Gi=31;OK\u{1B}\\\u{1B}P>|kitty(0.26.5)\u{1B}\\\u{1B}[I\u{1B}[O"),
    ("chord", 0x20, "\u{1D}+\u{1D}-\u{1D}\u{1B}[D\u{1D}\u{1B}[A\u{1D}0\u{1D}?\u{1D}\u{1D}\u{1D}q"),
]
for (name, config, text) in terminalInputs { seed("terminal-input", name, [config] + Array(text.utf8)) }

// MARK: frames

seed("frame", "schema-solid", hex("""
    11 0000000000000001 0000000000000002 0000000000000003 0000000000000004
    00000280 000001e0 00 0001  0001 0002 0003 0004 02 00ff8000
    """))
for (name, message) in jpegUpdates + losslessUpdates + messages.filter({ ["raw", "copy", "compact-solid", "compact-raw"].contains($0.0) }) {
    seed("frame", name, message.encode())
}

// MARK: rendezvous (mode 0: the payload; mode 1: sealed with TransparentCrypto, as the harness opens it)

let rendezvousTopic = "zrc/v1/in/00112233445566778899aabbccddeeff"
let ice = IceDescription(usernameFragment: "Ab1+", password: "0123456789abcdefghijkl", candidates: [
    IceCandidate(kind: .host, priority: 2_130_706_431, foundation: "1", address: "10.1.0.2", port: 47_001),
    IceCandidate(kind: .serverReflexive, priority: 1_694_498_815, foundation: "2", address: "198.51.100.20", port: 61_022),
    IceCandidate(kind: .relayed, priority: 16_777_215, foundation: "3", address: "2001:db8::7", port: 50_000),
])
let rendezvousMessages: [(String, RendezvousMessage)] = [
    ("offer", .offer(.init(timestampMicros: 1_764_288_000_000_000, nonce: Array(0x10...0x1F), replyToken: Array(0x20...0x2F),
                           flags: .noRelay, ice: ice))),
    ("answer", .answer(.init(timestampMicros: 1_764_288_000_500_000, nonce: Array(0x10...0x1F), outcome: .accepted(ice)))),
    ("answer-relays", .answer(.init(timestampMicros: 1, nonce: Array(0x10...0x1F), outcome: .accepted(ice, relays: [
        RelayCredential(relay: "198.51.100.7:3478", username: "1764374400:zrc-0a1b2c3d4e5f", password: "cGFzc3dvcmQ=", expiresAt: 1_764_374_400),
    ])))),
    ("busy", .answer(.init(timestampMicros: 2, nonce: Array(0x10...0x1F), outcome: .busy))),
]
for (name, message) in rendezvousMessages {
    seed("rendezvous", name, [0] + message.encoded())
    let sealed = try! RendezvousSeal.seal(message, topic: rendezvousTopic, sender: TransparentCrypto.keyPair(seed: 0x20),
                                          recipient: TransparentCrypto.keyPair(seed: 0x10).publicKey, crypto: TransparentCrypto())
    seed("rendezvous", "\(name)-sealed", [1] + sealed)
}

// MARK: write

for (target, list) in seeds.sorted(by: { $0.key < $1.key }) {
    let directory = root.appendingPathComponent(target)
    try? FileManager.default.removeItem(at: directory)
    try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    for (name, bytes) in list { try! Data(bytes).write(to: directory.appendingPathComponent(name)) }
    print("\(target): \(list.count) seeds")
}

extension String {
    /// Pieces of `count` characters, to show that the parser ignores the line breaks a mail client adds.
    func split(by count: Int) -> [String] {
        stride(from: 0, to: self.count, by: count).map { start in
            String(dropFirst(start).prefix(count))
        }
    }
}
