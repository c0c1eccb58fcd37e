extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and newlines (Foundation's
    /// `trimmingCharacters(in:)` without loading Foundation).
    package func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0.isNewline }
        guard let start = firstIndex(where: { !isSpace($0) }),
            let end = lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(self[start...end])
    }
}
