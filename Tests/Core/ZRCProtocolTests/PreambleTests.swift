import Testing
@testable import ZRCProtocol

@Suite struct PreambleTests {
    @Test func encodesMagicVersionFlags() {
        #expect(Preamble.encode() == [0x5A, 0x52, 0x43, 0x50, 0x00, 0x01, 0x00, 0x00])
    }

    enum Expected: Equatable {
        case needMore
        case ok(UInt16)
        case error(WireError.Kind, containing: String)
    }

    static let cases: [(input: [UInt8], role: PeerRole, expected: Expected)] = [
        ([], .controller, .needMore),
        (Array("Z".utf8), .controller, .needMore),
        (Array("ZRCP".utf8), .controller, .needMore),
        (Array("ZRCP".utf8) + [0, 1, 0], .controller, .needMore),
        (Array("ZRCP".utf8) + [0, 1, 0, 0], .controller, .ok(1)),
        (Array("ZRCP".utf8) + [0, 1, 0, 0] + [0x01, 0x02], .controller, .ok(1)),  // record bytes follow
        (Array("ZRCP".utf8) + [0, 1, 0xFF, 0xFF], .host, .ok(1)),  // unknown flags are ignored
        (Array("ZRCP".utf8) + [0, 2, 0, 0], .controller,
         .error(.protocolVersionMismatch, containing: "host speaks ZRC protocol v2, this controller v1: upgrade zrc-ctl on this machine")),
        (Array("ZRCP".utf8) + [0, 2, 0, 0], .host,
         .error(.protocolVersionMismatch, containing: "controller speaks ZRC protocol v2, this host v1: upgrade zrc-host on this machine")),
        (Array("ZRCP".utf8) + [0, 0, 0, 0], .controller,
         .error(.protocolVersionMismatch, containing: "upgrade zrc-host on the host machine")),
        (Array("HTTP/1.1 400 Bad Request\r\n".utf8), .controller, .error(.notZRCPeer, containing: "HTTP server")),
        (Array("HTTP".utf8), .controller, .needMore),
        (Array("GET / HTTP/1.1\r\n".utf8), .host, .error(.notZRCPeer, containing: "HTTP request")),
        (Array("SSH-".utf8), .controller, .error(.notZRCPeer, containing: "SSH")),
        (Array("SSH-2.0-OpenSSH_9.2\r\n".utf8), .controller, .error(.notZRCPeer, containing: "SSH")),
        (Array("RFB 003.008\n".utf8), .controller, .error(.notZRCPeer, containing: "VNC")),
        ([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC], .host, .error(.notZRCPeer, containing: "TLS handshake")),
        ([0x16], .host, .needMore),
        ([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x32], .controller, .error(.notZRCPeer, containing: "TLS alert")),
        ([0x00], .controller, .error(.notZRCPeer, containing: "bytes 00")),
        (Array("ZRCX".utf8), .controller, .error(.notZRCPeer, containing: "\"ZRCX\"")),
        (Array("hello world".utf8), .controller, .error(.notZRCPeer, containing: "not a ZRC host")),
        (Array("hello world".utf8), .host, .error(.notZRCPeer, containing: "not a ZRC controller")),
        (Array("SSH-2.0".utf8), .host, .error(.notZRCPeer, containing: "speaks SSH")),
    ]

    @Test(arguments: cases)
    func parse(input: [UInt8], role: PeerRole, expected: Expected) {
        let result = Preamble.parse(input, localRole: role)
        switch (result, expected) {
        case (.needMoreBytes, .needMore):
            break
        case (.ok(let version), .ok(let expectedVersion)):
            #expect(version == expectedVersion)
        case (.error(let error), .error(let kind, let fragment)):
            #expect(error.kind == kind)
            #expect(error.message.contains(fragment), "message: \(error.message)")
        default:
            Issue.record("got \(result), expected \(expected)")
        }
    }

    /// Every prefix of a good preamble asks for more; none is misreported.
    @Test func everyPrefixOfValidPreambleNeedsMore() {
        let preamble = Preamble.encode()
        for count in 0..<Preamble.length {
            #expect(Preamble.parse(preamble.prefix(count), localRole: .host) == .needMoreBytes)
        }
    }
}
