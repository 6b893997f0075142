extension String {
    /// Whole characters from the start, at most `bytes` UTF-8 bytes in all (a name cut to a
    /// field's byte limit without splitting a character).
    public func prefix(utf8Bytes bytes: Int) -> String {
        var result = ""
        for character in self {
            guard result.utf8.count + character.utf8.count <= bytes else { break }
            result.append(character)
        }
        return result
    }
}
