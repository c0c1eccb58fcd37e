/// The release of the swift-mcumgr package: the one source of the version that `mcumgr --version`,
/// `mcumgr-sim --version` and the README's dependency line show.
public enum SwiftMcuMgr {
    /// The package's version, `MAJOR.MINOR.PATCH` (semantic versioning): the tag to pin with
    /// `.package(url: …, from: "…")`.
    public static let version = "0.1.0"
}
