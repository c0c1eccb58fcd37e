/// An MCUboot image version as the device reads it from an image header (`struct image_version`).
public struct ImageVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Major version (`iv_major`).
    public var major: UInt8
    /// Minor version (`iv_minor`).
    public var minor: UInt8
    /// Revision (`iv_revision`).
    public var revision: UInt16
    /// Build number (`iv_build_num`).
    public var build: UInt32

    /// Makes a version from its four parts.
    public init(_ major: UInt8, _ minor: UInt8 = 0, _ revision: UInt16 = 0, build: UInt32 = 0) {
        self.major = major
        self.minor = minor
        self.revision = revision
        self.build = build
    }

    /// Parses `"1.2.3"`, `"1.2.3.4"` or imgtool's `"1.2.3+4"`; nil when malformed.
    public init?(_ text: String) {
        let main: Substring
        var build: Substring?
        if let plus = text.firstIndex(of: "+") {
            main = text[..<plus]
            build = text[text.index(after: plus)...]
        } else {
            main = Substring(text)
        }
        var parts = main.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, build == nil { build = parts.removeLast() }
        guard (1...3).contains(parts.count) else { return nil }
        guard let major = UInt8(parts[0]) else { return nil }
        let minor = parts.count > 1 ? UInt8(parts[1]) : 0
        let revision = parts.count > 2 ? UInt16(parts[2]) : 0
        let buildNumber = build.map { UInt32($0) } ?? 0
        guard let minor, let revision, let buildNumber else { return nil }
        self.init(major, minor, revision, build: buildNumber)
    }

    /// How Zephyr's `image list` prints it: `major.minor.revision`, plus `.build` when the build is not 0.
    public var description: String {
        let base = "\(major).\(minor).\(revision)"
        return build == 0 ? base : base + ".\(build)"
    }

    /// Orders by major, minor, revision, then build.
    public static func < (lhs: ImageVersion, rhs: ImageVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.revision, lhs.build) < (rhs.major, rhs.minor, rhs.revision, rhs.build)
    }

    /// Compares without the build number, as Zephyr's `img_mgmt_vercmp()` does by default.
    func compareIgnoringBuild(_ other: ImageVersion) -> Int {
        let a = (major, minor, revision)
        let b = (other.major, other.minor, other.revision)
        return a < b ? -1 : (a == b ? 0 : 1)
    }
}
