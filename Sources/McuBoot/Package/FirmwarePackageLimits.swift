/// The bounds a DFU package is read within, so that a malformed or hostile zip (a zip bomb)
/// ends in an error before it costs much time or memory.
///
/// Each bound is checked against the sizes the archive declares before anything is inflated, and
/// again while inflating (a file stops at its bound whatever its header claims).
public struct FirmwarePackageLimits: Sendable, Hashable {
    /// Bytes of `manifest.json` (NCS writes a few hundred).
    public var manifestSize: Int = 1 << 20
    /// Bytes of one file of the package (MCUboot slots on external flash reach tens of MiB).
    public var fileSize: Int = 64 << 20
    /// Bytes of all the files the package holds, together.
    public var totalSize: Int = 256 << 20
    /// Files the manifest lists.
    public var files: Int = 64

    /// The default bounds: manifest 1 MiB, a file 64 MiB, all files 256 MiB, 64 files.
    public init() {}
}
