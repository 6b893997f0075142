/// Host → controller, about once a second while frames flow (`linkStats`): what the host measures
/// of the path, for the controller's status line.
///
/// Wire layout: deliveryRate u64 (bytes/s, 0 = not yet known), roundTripMicros u64 (the bare round
/// trip, 0 = not yet known), queueMicros u64 (how long frames wait beyond it and their own
/// transfer), inFlightBytes u32.
public struct LinkStats: Sendable, Equatable, Codable {
    public var deliveryRate: UInt64
    public var roundTripMicros: UInt64
    public var queueMicros: UInt64
    public var inFlightBytes: UInt32

    public init(deliveryRate: UInt64, roundTripMicros: UInt64, queueMicros: UInt64, inFlightBytes: UInt32) {
        self.deliveryRate = deliveryRate
        self.roundTripMicros = roundTripMicros
        self.queueMicros = queueMicros
        self.inFlightBytes = inFlightBytes
    }

    func write(to writer: inout ByteWriter) {
        writer.write(deliveryRate)
        writer.write(roundTripMicros)
        writer.write(queueMicros)
        writer.write(inFlightBytes)
    }

    init(from reader: inout ByteReader) throws(WireError) {
        deliveryRate = try reader.readUInt64("deliveryRate")
        roundTripMicros = try reader.readUInt64("roundTripMicros")
        queueMicros = try reader.readUInt64("queueMicros")
        inFlightBytes = try reader.readUInt32("inFlightBytes")
    }
}
