/// A group's own error code, as carried by SMP v2's `err {group, rc}`.
public protocol SMPGroupErrorCode: RawRepresentable<Int>, Hashable, Sendable, CustomStringConvertible {
    /// The group these codes belong to.
    static var group: SMPGroup { get }
    /// The C enum prefix, e.g. `IMG_MGMT_ERR_`.
    static var prefix: String { get }
    /// Known codes: number → (name without prefix, meaning).
    static var table: [Int: (name: String, text: String)] { get }
    /// Makes a code from its number (unknown numbers are kept).
    init(rawValue: Int)
}

extension SMPGroupErrorCode {
    /// The C name, e.g. `IMG_MGMT_ERR_HASH_NOT_FOUND`.
    public var name: String { Self.prefix + (Self.table[rawValue]?.name ?? "\(rawValue)") }

    /// Name, number and meaning.
    public var description: String {
        "\(name) (\(rawValue)): \(Self.table[rawValue]?.text ?? "unrecognized \(Self.group) group error")"
    }
}
