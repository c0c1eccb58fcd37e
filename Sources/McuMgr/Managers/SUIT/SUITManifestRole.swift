/// A SUIT manifest role, as nRF Connect SDK encodes it: two nibbles, `<domain> <index>`
/// (0x10 Nordic's top manifest, 0x20 the application root, 0x22 an application local manifest, 0x31 a radio local one …).
public struct SUITManifestRole: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    /// The role's number.
    public var rawValue: UInt32

    /// Makes a role from its number.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The application's root manifest (0x20), the one an update of the application replaces.
    public static let applicationRoot = SUITManifestRole(rawValue: 0x20)

    /// The domain nibble: 1 Nordic (secure domain), 2 application, 3 radio.
    public var domain: UInt32 { (rawValue >> 4) & 0xf }
    /// The index nibble within the domain.
    public var index: UInt32 { rawValue & 0xf }

    /// What nRF Connect SDK calls the role (`suit_manifest_role_t`), if known.
    public var name: String? {
        switch rawValue {
        case 0x10: return "Nordic top manifest"
        case 0x11: return "secure domain firmware manifest"
        case 0x12: return "system controller manifest"
        case 0x20: return "application root manifest"
        case 0x21: return "application recovery manifest"
        case 0x22, 0x23, 0x24, 0x25, 0x26: return "application local manifest \(index - 1)"
        case 0x30: return "radio recovery manifest"
        case 0x31, 0x32, 0x33: return "radio local manifest \(index)"
        default: return nil
        }
    }

    /// `0x20 (application root manifest)`.
    public var description: String {
        let hex = "0x" + String(rawValue, radix: 16)
        return name.map { "\(hex) (\($0))" } ?? hex
    }

    /// Reads the role as an unsigned integer.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(UInt32.self)
    }

    /// Writes the role as an unsigned integer.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
