import NIOCore

/// Splits a byte stream into newline-terminated lines, refusing any line longer than the limit
/// before buffering it (the local control socket speaks one JSON document per line).
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    let maximumLineLength: Int

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: 0x0A) else {
            if buffer.readableBytes > maximumLineLength { throw LineTooLong(limit: maximumLineLength) }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        guard length <= maximumLineLength else { throw LineTooLong(limit: maximumLineLength) }
        let line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }

    struct LineTooLong: Error, CustomStringConvertible {
        let limit: Int
        var description: String { "a control message exceeded \(limit) bytes" }
    }
}
