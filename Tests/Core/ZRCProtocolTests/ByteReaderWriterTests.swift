import PropertyBased
import Testing
@testable import ZRCProtocol

@Suite struct ByteReaderWriterTests {
    @Test func integersAreBigEndian() throws {
        var writer = ByteWriter()
        writer.write(UInt16(0x0102))
        writer.write(UInt32(0x0304_0506))
        writer.write(UInt64(0x0708_090A_0B0C_0D0E))
        writer.write(Int16(-2))
        writer.write(Int32(-1))
        #expect(writer.bytes == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF])
        var reader = ByteReader(writer.bytes, context: "test")
        #expect(try reader.readUInt16("a") == 0x0102)
        #expect(try reader.readUInt32("b") == 0x0304_0506)
        #expect(try reader.readUInt64("c") == 0x0708_090A_0B0C_0D0E)
        #expect(try reader.readInt16("d") == -2)
        #expect(try reader.readInt32("e") == -1)
        #expect(reader.isAtEnd)
    }

    @Test func integerRoundTrip() async {
        await propertyCheck(input: Gen.int64(), Gen.uint32(), Gen.int16()) { a, b, c in
            var writer = ByteWriter()
            writer.write(a)
            writer.write(b)
            writer.write(c)
            var reader = ByteReader(writer.bytes, context: "test")
            let decoded = (try reader.read(Int64.self, "a"), try reader.readUInt32("b"), try reader.readInt16("c"))
            #expect(decoded == (a, b, c))
        }
    }

    @Test(arguments: [
        ([UInt8](), WireError.Kind.truncated),
        ([0x00], .truncated),
        ([0x00, 0x02, 0x61], .truncated),
        ([0x10, 0x01], .lengthTooLarge),  // 4097 bytes announced
        ([0xFF, 0xFF], .lengthTooLarge),
        ([0x00, 0x01, 0xFF], .invalidUTF8),
        ([0x00, 0x02, 0xC3, 0x28], .invalidUTF8),
        ([0x00, 0x03, 0xED, 0xA0, 0x80], .invalidUTF8),  // encoded surrogate
    ])
    func badStrings(bytes: [UInt8], kind: WireError.Kind) {
        var reader = ByteReader(bytes, context: "test")
        #expect(errorKind { () throws(WireError) in try reader.readString("s") } == kind)
    }

    @Test func stringAtLimitRoundTrips() throws {
        let text = String(repeating: "é", count: 2048)  // 4096 bytes
        var writer = ByteWriter()
        writer.write(string: text)
        var reader = ByteReader(writer.bytes, context: "test")
        #expect(try reader.readString("s") == text)
    }

    @Test func longStringsAreCutAtScalarBoundary() throws {
        let text = String(repeating: "a", count: 4095) + "€"  // 4098 bytes; the euro sign must go whole
        var writer = ByteWriter()
        writer.write(string: text)
        var reader = ByteReader(writer.bytes, context: "test")
        #expect(try reader.readString("s") == String(repeating: "a", count: 4095))
    }

    @Test(arguments: [UInt32(5), 0x7FFF_FFFF, 0xFFFF_FFFF])
    func blobLengthBeyondDataIsTruncatedNotAllocated(length: UInt32) {
        var writer = ByteWriter()
        writer.write(length)
        writer.write(bytes: [1, 2, 3])
        var reader = ByteReader(writer.bytes, context: "test")
        #expect(errorKind { () throws(WireError) in try reader.readBlob("b", maxLength: Int(UInt32.max)) } == .truncated)
    }

    @Test func blobAboveLimit() {
        var reader = ByteReader([0, 0, 0, 9] + [UInt8](repeating: 0, count: 9), context: "test")
        #expect(errorKind { () throws(WireError) in try reader.readBlob("b", maxLength: 8) } == .lengthTooLarge)
    }

    @Test(arguments: [(UInt8(0), false), (1, true)])
    func bools(byte: UInt8, value: Bool) throws {
        var reader = ByteReader([byte], context: "test")
        #expect(try reader.readBool("b") == value)
    }

    @Test(arguments: [UInt8(2), 0x80, 0xFF])
    func invalidBools(byte: UInt8) {
        var reader = ByteReader([byte], context: "test")
        #expect(errorKind { () throws(WireError) in try reader.readBool("b") } == .invalidValue)
    }

    @Test func errorsNameContextAndField() {
        var reader = ByteReader([0], context: "ping message")
        let error = wireError { () throws(WireError) in try reader.readUInt64("id") }
        #expect(error?.message == "ping message: id needs 8 bytes, only 1 left")
    }

    @Test func readerWorksOnSlicesWithNonZeroStart() throws {
        let bytes: [UInt8] = [9, 9, 0, 1, 0x41]
        var reader = ByteReader(bytes[2...], context: "test")
        #expect(try reader.readString("s") == "A")
        #expect(reader.isAtEnd)
    }
}
