/// A short pairing code, read aloud and typed: `42-8317-0946-5`.
///
/// - `locator` (2 digits) names the meeting point where the controller finds the waiting host. It
///   is not secret: the meeting points carry only a hash of it, but 100 values are easily tried.
/// - `secret` (8 digits, 26.6 bits) is the CPace password. It never travels; each CPace run is
///   one guess at it, and a host allows three.
/// - A Damm check digit over the ten digits catches every single wrong digit and every swap of
///   two neighbours before a typo costs one of the three guesses. It is never sent anywhere.
public struct PairingCode: Sendable, Equatable, CustomStringConvertible {
    public static let locatorDigits = 2
    public static let secretDigits = 8

    public let locator: Int
    private let secretValue: Int

    /// Throws unless `locator` is 0…99 and `secret` is 0…99,999,999.
    public init(locator: Int, secret: Int) throws(PairingCodeError) {
        guard (0...99).contains(locator) else { throw PairingCodeError("the locator must be two digits") }
        guard (0...99_999_999).contains(secret) else { throw PairingCodeError("the secret must be eight digits") }
        self.locator = locator
        secretValue = secret
    }

    /// A fresh code from `random` (the caller's CSPRNG): `randomBelow(n)` returns 0..<n uniformly.
    public static func generate(randomBelow: (Int) -> Int) -> PairingCode {
        // Both ranges are in bounds by construction.
        try! PairingCode(locator: randomBelow(100), secret: randomBelow(100_000_000))
    }

    /// Reads what a person typed: the eleven digits in order, with spaces, dashes or dots
    /// anywhere; anything else, another count of digits or a wrong check digit is refused.
    public init(parsing text: String) throws(PairingCodeError) {
        var digits: [Int] = []
        for scalar in text.unicodeScalars {
            switch scalar {
            case "0"..."9": digits.append(Int(scalar.value) - 48)
            case " ", "-", ".", "\t": continue
            default: throw PairingCodeError("a code holds only digits, spaces and dashes")
            }
            guard digits.count <= 11 else { throw PairingCodeError("a code has 11 digits; this has more") }
        }
        guard digits.count == 11 else { throw PairingCodeError("a code has 11 digits; this has \(digits.count)") }
        guard Self.dammCheck(digits.dropLast()) == digits[10] else {
            throw PairingCodeError("this code has a typing mistake (its check digit does not match); read it again")
        }
        try self.init(locator: digits[0] * 10 + digits[1], secret: digits[2...9].reduce(0) { $0 * 10 + $1 })
    }

    /// The digits as shown: `LL-SSSS-SSSS-C`.
    public var text: String {
        let digits = self.digits
        let check = Self.dammCheck(digits)
        let all = (digits + [check]).map(String.init)
        return all[0...1].joined() + "-" + all[2...5].joined() + "-" + all[6...9].joined() + "-" + all[10]
    }

    /// The CPace password: the eight secret digits as ASCII.
    public var passwordBytes: SecretBytes {
        SecretBytes(digits[2...9].map { UInt8(48 + $0) })
    }

    /// CPace's channel identifier for this code: lv_cat("ZRC pair by code 1", the locator's two
    /// ASCII digits). It binds a run to ZRC's pairing and to the meeting point it was found at.
    public var channelIdentifier: [UInt8] {
        CPace.lengthValueConcatenation([Array("ZRC pair by code 1".utf8), Array(text.prefix(2).utf8)])
    }

    /// Never prints the secret.
    public var description: String { "PairingCode(locator \(locator), secret redacted)" }

    public static func == (lhs: PairingCode, rhs: PairingCode) -> Bool {
        lhs.locator == rhs.locator && lhs.secretValue == rhs.secretValue
    }

    private var digits: [Int] {
        var secret = secretValue
        var secretDigits = [Int](repeating: 0, count: Self.secretDigits)
        for index in (0..<Self.secretDigits).reversed() {
            secretDigits[index] = secret % 10
            secret /= 10
        }
        return [locator / 10, locator % 10] + secretDigits
    }

    /// The Damm algorithm's check digit (a weakly totally anti-symmetric quasigroup of order 10).
    static func dammCheck<Digits: Sequence<Int>>(_ digits: Digits) -> Int {
        var interim = 0
        for digit in digits { interim = dammTable[interim][digit] }
        return interim
    }

    private static let dammTable: [[Int]] = [
        [0, 3, 1, 7, 5, 9, 8, 6, 4, 2], [7, 0, 9, 2, 1, 5, 4, 8, 6, 3], [4, 2, 0, 6, 8, 7, 1, 3, 5, 9],
        [1, 7, 5, 0, 9, 8, 3, 4, 2, 6], [6, 1, 2, 3, 0, 4, 5, 9, 7, 8], [3, 6, 7, 4, 2, 0, 9, 5, 8, 1],
        [5, 8, 6, 9, 7, 2, 0, 1, 3, 4], [8, 9, 4, 5, 3, 6, 2, 0, 1, 7], [9, 4, 3, 8, 6, 1, 7, 2, 0, 5],
        [2, 5, 8, 1, 4, 3, 6, 7, 9, 0],
    ]
}

/// Why a typed code was refused, in words for the person typing it.
public struct PairingCodeError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
