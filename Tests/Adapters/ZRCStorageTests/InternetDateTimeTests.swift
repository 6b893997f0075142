import Foundation
import PropertyBased
import Testing
import ZRCStorage

/// The stores' own RFC 3339 dates agree with Foundation's ISO 8601 formatter (the oracle here;
/// the stores avoid it because it loads ICU's time-zone data).
@Suite struct InternetDateTimeTests {
    static func oracle(_ options: ISO8601DateFormatter.Options) -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = options
        return formatter
    }

    /// Any whole second from 1583 (Foundation's calendar is Julian before October 1582; these
    /// dates are Gregorian throughout) to 9999 is written as Foundation writes it and read back.
    @Test func formatsAndParsesLikeFoundation() async {
        let formatter = Self.oracle([.withInternetDateTime])
        await propertyCheck(count: 500, input: Gen.int(in: -12_212_553_600...253_402_300_799)) { seconds in
            let date = Date(timeIntervalSince1970: Double(seconds))
            let text = InternetDateTime.format(date)
            #expect(text == formatter.string(from: date))
            #expect(InternetDateTime.parse(text) == date)
        }
    }

    @Test(arguments: [
        ("2026-11-22T09:30:00Z", 1_795_339_800.0), ("2026-11-22T10:30:00+01:00", 1_795_339_800.0),
        ("2026-11-22T04:00:00-05:30", 1_795_339_800.0), ("2026-11-22T09:30:00.250Z", 1_795_339_800.25),
        ("1970-01-01T00:00:00Z", 0), ("2024-02-29T23:59:59Z", 1_709_251_199), ("1969-12-31T23:59:59Z", -1),
    ])
    func readsOffsetsAndFractions(text: String, seconds: Double) {
        #expect(InternetDateTime.parse(text) == Date(timeIntervalSince1970: seconds))
    }

    @Test(arguments: [
        "", "2026-11-22", "2026-11-22T09:30:00", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-11-22T24:00:00Z",
        "2026-11-22T09:60:00Z", "2026-11-22T09:30:00.Z", "2026-11-22T09:30:00+0100", "2026-11-22T09:30:00Zjunk",
        "0000-01-01T00:00:00Z", "２０２６-11-22T09:30:00Z", "2026-11-22 09:30:00Z",
    ])
    func rejectsWhatIsNotAnInternetDateTime(text: String) {
        #expect(InternetDateTime.parse(text) == nil)
    }
}
