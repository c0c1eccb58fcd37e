import Hex
import McuMgr

extension TextFormat {
    /// `text` padded with spaces on the left to `width` characters.
    public static func right(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    /// `text` padded with spaces on the right to `width` characters.
    public static func left(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// Rows under a header, columns as wide as their widest cell and two spaces apart, the
    /// columns in `rightAligned` (numbers) aligned right; no trailing spaces.
    public static func table(header: [String], rows: [[String]], rightAligned: Set<Int> = []) -> String {
        var widths = header.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count {
                widths[i] = max(widths[i], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            var text = Substring(cells.enumerated().map { i, cell in
                guard i < widths.count else { return cell }
                return rightAligned.contains(i) ? right(cell, widths[i]) : left(cell, widths[i])
            }.joined(separator: "  "))
            while text.last == " " { text = text.dropLast() }
            return String(text)
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }

    /// `bytes` as text when they are printable UTF-8 (newlines and tabs allowed), else nil.
    public static func printableText(_ bytes: [UInt8]) -> String? {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let printable = text.unicodeScalars.allSatisfy { scalar in
            scalar == "\n" || scalar == "\t" || scalar == "\r" || (scalar.value >= 0x20 && scalar.value != 0x7f)
        }
        return printable ? text : nil
    }

    /// Parses hex bytes as people type them: two digits a byte, either case, an optional `0x`
    /// prefix, spaces and colons between bytes allowed; nil for anything else.
    public static func bytes(hex text: String) -> [UInt8]? {
        var digits = text.filter { $0 != " " && $0 != ":" }
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits.removeFirst(2) }
        return [UInt8](hex: digits)
    }

    /// A 32-byte image hash (SHA-256 TLV) from hex text as ``bytes(hex:)`` reads it; nil for anything else.
    public static func imageHash(_ text: String) -> [UInt8]? {
        guard let bytes = bytes(hex: text), bytes.count == 32 else { return nil }
        return bytes
    }
}
