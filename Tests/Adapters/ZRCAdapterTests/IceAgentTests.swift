import CReach
import Foundation
import Testing
import ZRCIce
import ZRCNetworking
import ZRCProtocol
import ZRCReach

/// The ICE adapter's own rules: the C pump that moves PseudoTCP's bytes to the caller's socket
/// survives that socket breaking, and an agent once closed is never touched again.
@Suite struct IceAgentTests {
    /// A send error other than EAGAIN (the caller's end is gone) ends the pending chunk: offset
    /// and length both go back to 0, so a later chunk is not read from where this one stopped.
    @Test func aBrokenSocketResetsThePendingChunkWhole() throws {
        var ends: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        defer { close(ends[0]) }
        let buffer = Array("0123456789".utf8).map { CChar(bitPattern: $0) }
        var offset = 0, length = 10
        // Half of it goes out while the socket works.
        #expect(send(ends[0], buffer, 5, Int32(MSG_NOSIGNAL)) == 5)
        offset = 5
        length = 5
        close(ends[1])  // the caller's end goes: the next send fails with EPIPE
        let done = zrc_flush_pending(ends[0], buffer, &offset, &length)
        #expect(done != 0, "nothing more to deliver")
        #expect(offset == 0 && length == 0, "offset \(offset), length \(length)")
    }

    @Test func aWorkingSocketTakesThePendingBytesInOrder() throws {
        var ends: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let buffer = Array("0123456789".utf8).map { CChar(bitPattern: $0) }
        var offset = 3, length = 7
        #expect(zrc_flush_pending(ends[0], buffer, &offset, &length) != 0)
        #expect(offset == 0 && length == 0)
        var received = [UInt8](repeating: 0, count: 16)
        let count = recv(ends[1], &received, received.count, 0)
        #expect(Array(received.prefix(max(0, count))) == Array("3456789".utf8))
    }

    /// `close()` frees the C agent; a `connect` after it must refuse instead of calling into it.
    @Test func aClosedAgentRefusesToConnect() async throws {
        let agent = try await NiceAgentMaker().makeAgent(controlling: true, settings: IceSettings())
        let description = try await agent.localDescription(timeout: .seconds(10))
        await agent.close()
        let error = await #expect(throws: ReachError.self) { try await agent.connect(to: description, timeout: .seconds(5)) }
        #expect(error?.message.contains("closed") == true, "\(String(describing: error))")
    }
}
