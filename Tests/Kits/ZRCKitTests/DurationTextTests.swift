import Testing
import ZRCCommandSupport

@Suite struct DurationTextTests {
    @Test(arguments: [
        ("1s", Duration.seconds(1)), ("0.2s", .milliseconds(200)), ("200ms", .milliseconds(200)), ("90", .seconds(90)),
        ("1.5m", .seconds(90)), ("10min", .seconds(600)), ("1h", .seconds(3600)), (" 2 s ", .seconds(2)), ("0", .zero),
        ("0.0005s", .microseconds(500)),
    ])
    func durationsAsPeopleTypeThem(text: String, expected: Duration) {
        #expect(DurationText.duration(text) == expected)
    }

    @Test(arguments: ["", "s", "-1s", "1x", "abc", "1e3s", ".", "1..2s", "inf", "nan", "101d", "9999999999h", "0x10s"])
    func notDurations(text: String) {
        #expect(DurationText.duration(text) == nil, "\(text.debugDescription)")
    }

    @Test func wholeSecondsForSettingsKeptInSeconds() {
        #expect(DurationText.seconds("10m") == 600)
        #expect(DurationText.seconds("0.2s") == nil)
    }
}
