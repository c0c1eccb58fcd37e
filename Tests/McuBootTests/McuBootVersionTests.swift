import McuBoot
import Testing

@Suite("MCUboot image versions")
struct McuBootVersionTests {
    @Test(
        "parses imgtool and device notation",
        arguments: [
            ("1.2.3", McuBootVersion(major: 1, minor: 2, revision: 3)),
            ("1.2.3+4", McuBootVersion(major: 1, minor: 2, revision: 3, build: 4)),
            ("1.2.3.4", McuBootVersion(major: 1, minor: 2, revision: 3, build: 4)),
            ("0.0.0", McuBootVersion(major: 0)),
            ("1", McuBootVersion(major: 1)),
            ("1.2", McuBootVersion(major: 1, minor: 2)),
            (" 1.2.3+7\n", McuBootVersion(major: 1, minor: 2, revision: 3, build: 7)),
            ("255.255.65535+4294967295", McuBootVersion(major: 255, minor: 255, revision: 65535, build: 4_294_967_295)),
            ("255.255.65535.4294967295", McuBootVersion(major: 255, minor: 255, revision: 65535, build: 4_294_967_295)),
        ])
    func parses(text: String, expected: McuBootVersion) {
        #expect(McuBootVersion(string: text) == expected)
    }

    @Test(
        "refuses malformed or out-of-range text",
        arguments: [
            "", " ", "1.", ".1", "1..3", "1.2.3.", "1.2.3.4.5", "1.2.3+", "+4", "1.2+3", "1+3", "1.2.3.4+5",
            "1.2.3+4.5", "1.2.3+4+5", "256.0.0", "0.256.0", "0.0.65536", "1.2.3+4294967296", "1.2.3.4294967296",
            "a.b.c", "-1.2.3", "1.-2.3", "1.2.3-rc1", "v1.2.3", "1.2.3 4", "１.2.3", "99999999999999999999999.0.0",
        ])
    func refuses(text: String) {
        #expect(McuBootVersion(string: text) == nil)
    }

    @Test("description is imgtool notation, deviceString is Zephyr's")
    func strings() {
        let withBuild = McuBootVersion(major: 1, minor: 2, revision: 3, build: 4)
        #expect(withBuild.description == "1.2.3+4")
        #expect(withBuild.deviceString == "1.2.3.4")
        let noBuild = McuBootVersion(major: 1, minor: 2, revision: 3)
        #expect(noBuild.description == "1.2.3")
        #expect(noBuild.deviceString == "1.2.3")
        #expect("\(McuBootVersion(major: 10, minor: 0, revision: 300))" == "10.0.300")
    }

    @Test("both notations round-trip")
    func roundTrip() {
        var rng = SeededGenerator(seed: 42)
        for _ in 0..<500 {
            let version = McuBootVersion(
                major: .random(in: 0...255, using: &rng), minor: .random(in: 0...255, using: &rng),
                revision: .random(in: 0...65535, using: &rng),
                build: Bool.random(using: &rng) ? 0 : .random(in: 0...UInt32.max, using: &rng))
            #expect(McuBootVersion(string: version.description) == version)
            #expect(McuBootVersion(string: version.deviceString) == version)
        }
    }

    @Test("orders by major, minor, revision, then build, numerically")
    func ordering() {
        let ordered = [
            "0.0.0", "0.0.1", "0.1.0", "0.9.9", "0.10.0", "1.0.0", "1.2.3", "1.2.3+1", "1.2.3+2", "1.2.3+10",
            "1.2.4", "1.2.10", "1.10.0", "2.0.0", "255.255.65535+4294967295",
        ].map { McuBootVersion(string: $0)! }
        #expect(ordered.shuffled().sorted() == ordered)
        for (lower, higher) in zip(ordered, ordered.dropFirst()) {
            #expect(lower < higher)
            #expect(!(higher < lower))
            #expect(lower != higher)
        }
        #expect(McuBootVersion(string: "1.2.3.0") == McuBootVersion(string: "1.2.3"))
        #expect(Set(["1.2.3", "1.2.3+0", "1.2.3.0"].compactMap(McuBootVersion.init(string:))).count == 1)
    }

    @Test("imgtool's automatic security counter")
    func securityCounter() {
        #expect(McuBootVersion(major: 1, minor: 2, revision: 3, build: 99).defaultSecurityCounter == 0x0102_0003)
        #expect(McuBootVersion(major: 255, minor: 255, revision: 65535).defaultSecurityCounter == 0xffff_ffff)
    }
}
