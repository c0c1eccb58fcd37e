/// How the next boot goes (`enum img_mgmt_next_boot_type`).
enum NextBootKind: Sendable {
    /// An ordinary boot of a confirmed image.
    case normal
    /// A one-time test boot.
    case test
    /// A revert to the previous image.
    case revert
}
