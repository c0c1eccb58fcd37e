/// An MCUboot image version: `major.minor.revision+build` (`struct image_version`).
///
/// Versions order by major, minor, revision, then build number.
public struct McuBootVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The major version (`iv_major`).
    public var major: UInt8
    /// The minor version (`iv_minor`).
    public var minor: UInt8
    /// The revision (`iv_revision`).
    public var revision: UInt16
    /// The build number (`iv_build_num`).
    public var build: UInt32

    /// Creates a version from its four parts.
    public init(major: UInt8, minor: UInt8 = 0, revision: UInt16 = 0, build: UInt32 = 0) {
        self.major = major
        self.minor = minor
        self.revision = revision
        self.build = build
    }

    /// Parses imgtool notation (`"1"`, `"1.2"`, `"1.2.3"`, `"1.2.3+4"`) or the device notation
    /// `"1.2.3.4"`; nil when the text is neither or a part is out of range.
    public init?(string: String) {
        let text = string.trimmingWhitespace()
        var mainPart = Substring(text)
        var buildPart: Substring?
        if let plus = text.firstIndex(of: "+") {
            mainPart = text[..<plus]
            buildPart = text[text.index(after: plus)...]
        }
        let parts = mainPart.split(separator: ".", omittingEmptySubsequences: false)
        // "+build" needs all three dotted parts; four dotted parts is the device form.
        guard (1...4).contains(parts.count), buildPart == nil || parts.count == 3 else { return nil }
        guard let major = Self.number(parts[0], max: UInt8.max) else { return nil }
        var version = McuBootVersion(major: UInt8(major))
        if parts.count > 1 {
            guard let minor = Self.number(parts[1], max: UInt8.max) else { return nil }
            version.minor = UInt8(minor)
        }
        if parts.count > 2 {
            guard let revision = Self.number(parts[2], max: UInt16.max) else { return nil }
            version.revision = UInt16(revision)
        }
        if let build = parts.count == 4 ? parts[3] : buildPart {
            guard let value = Self.number(build, max: UInt32.max) else { return nil }
            version.build = UInt32(value)
        }
        self = version
    }

    /// Reads the 8-byte `struct image_version` at `offset` of `bytes` (little-endian); nil when
    /// fewer than 8 bytes are there.
    init?(imageVersionAt offset: Int, in bytes: [UInt8]) {
        guard offset >= 0, offset <= bytes.count - 8, let revision = bytes.le16(at: offset + 2),
            let build = bytes.le32(at: offset + 4)
        else { return nil }
        self.init(major: bytes[offset], minor: bytes[offset + 1], revision: revision, build: build)
    }

    /// The 8-byte `struct image_version` as MCUboot stores it, in the header and in dependency TLVs.
    var imageVersionBytes: [UInt8] {
        var out = [major, minor]
        out.appendLE16(revision)
        out.appendLE32(build)
        return out
    }

    /// imgtool notation, `"1.2.3+4"`; the `+build` suffix is left out when the build is 0.
    public var description: String {
        let base = "\(major).\(minor).\(revision)"
        return build == 0 ? base : base + "+\(build)"
    }

    /// How Zephyr's image manager reports the version in image state, `"1.2.3.4"`; the
    /// `.build` part is left out when the build is 0.
    public var deviceString: String {
        let base = "\(major).\(minor).\(revision)"
        return build == 0 ? base : base + ".\(build)"
    }

    /// The security counter imgtool derives with `--security-counter auto`:
    /// `major << 24 + minor << 16 + revision` (the build number is not part of it).
    public var defaultSecurityCounter: UInt32 {
        UInt32(major) << 24 | UInt32(minor) << 16 | UInt32(revision)
    }

    /// Orders by major, minor, revision, then build.
    public static func < (lhs: McuBootVersion, rhs: McuBootVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.revision, lhs.build) < (rhs.major, rhs.minor, rhs.revision, rhs.build)
    }

    /// A decimal number of ASCII digits only, at most `max`.
    private static func number<T: FixedWidthInteger>(_ text: Substring, max: T) -> UInt64? {
        guard !text.isEmpty, text.count <= 20, text.allSatisfy({ $0.isASCII && $0.isNumber }),
            let value = UInt64(text), value <= UInt64(max)
        else { return nil }
        return value
    }
}
