import Hex
import McuMgr
import McuMgrTools
import Testing

/// The one hex helper, and the lenient forms people type.
@Suite("Hex")
struct HexTests {
    @Test("bytes to lowercase hex and back")
    func roundTrip() throws {
        let bytes: [UInt8] = [0x00, 0x0f, 0x10, 0xab, 0xff]
        #expect(bytes.hexString == "000f10abff")
        #expect([UInt8](hex: "000F10abFF") == bytes)
        #expect([UInt8]().hexString == "")
        #expect([UInt8](hex: "") == [])
        let all = (0...255).map { UInt8($0) }
        #expect([UInt8](hex: all.hexString) == all)
        #expect(all[1...3].hexString == "010203")
    }

    @Test("anything but pairs of hex digits is refused", arguments: ["0", "0g", "0x00", "00 11", "zz"])
    func invalid(text: String) {
        #expect([UInt8](hex: text) == nil)
    }

    @Test("typed forms: 0x prefix, spaces and colons; image hashes are exactly 32 bytes")
    func lenient() {
        #expect(TextFormat.bytes(hex: "0x01:ff 10") == [0x01, 0xff, 0x10])
        #expect(TextFormat.bytes(hex: "xyz") == nil)
        let hash = String(repeating: "ab", count: 32)
        #expect(TextFormat.imageHash(hash.uppercased()) == [UInt8](repeating: 0xab, count: 32))
        #expect(TextFormat.imageHash(String(hash.dropLast(2))) == nil)
        #expect(TextFormat.printableText(Array("a\tb\n".utf8)) == "a\tb\n")
        #expect(TextFormat.printableText([0x00, 0x41]) == nil)
        #expect(TextFormat.printableText([0xff]) == nil)
    }

    @Test("sizes in decimal or 0x hexadecimal, as imgtool's users write them")
    func sizes() {
        #expect(Int(decimalOrHex: "524288") == 524_288)
        #expect(Int(decimalOrHex: "0x80000") == 0x80000)
        #expect(Int(decimalOrHex: "0X1f") == 31)
        #expect(Int(decimalOrHex: "-1") == -1)
        #expect(Int(decimalOrHex: "0") == 0)
        for bad in ["", "0x", "1f", "12kb", " 12", "+5", "0x-5", "99999999999999999999", "0x1_0"] {
            #expect(Int(decimalOrHex: bad) == nil, "\(bad)")
        }
    }

    @Test("duration options: finite, 0 or more (or more than 0), at most the maximum; the range in words")
    func durations() throws {
        let seconds = DurationOption.seconds(maximum: 86_400, allowsZero: false)
        #expect(try seconds.parse("60") == .seconds(60))
        #expect(try seconds.parse("0.5") == .milliseconds(500))
        #expect(try seconds.parse("86400") == .seconds(86_400))
        #expect(try DurationOption.milliseconds(maximum: 3_600_000).parse("0") == .zero)
        #expect(try DurationOption.milliseconds(maximum: 3_600_000).parse("2.5") == .microseconds(2_500))
        // What crashed `Duration.seconds(_:)` and `.milliseconds(_:)` (SIGILL), and what was never a duration.
        for bad in ["1e300", "inf", "-inf", "nan", "infinity", "86400.5", "-1", "0", "-0", "", "5s", " 5", "1e20"] {
            let error = try #require(throws: DurationOptionError.self, "\(bad)") { try seconds.parse(bad) }
            #expect(error == DurationOptionError(text: bad, option: seconds))
        }
        #expect(seconds.range == "more than 0 and at most 86400 seconds")
        #expect(DurationOptionError(text: "x", option: seconds).description == "expected more than 0 and at most 86400 seconds")
        #expect(DurationOption.milliseconds(maximum: 3_600_000).range == "0 to 3600000 milliseconds")
        #expect(DurationOption.seconds(maximum: 0.5).range == "0 to 0.5 seconds")
    }
}
