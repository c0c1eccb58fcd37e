/// What the device says about its bootloader (OS command 8).
public struct BootloaderInfo: Codable, Sendable, Equatable {
    /// The bootloader's name (`"MCUboot"`), when the device gives one.
    public var name: String?
    /// The bootloader's mode number, when the device answers the `mode` query.
    public var mode: Int?
    /// Whether the bootloader refuses to run an older image than the current one.
    public var noDowngrade: Bool

    /// Makes an info record.
    public init(name: String?, mode: Int?, noDowngrade: Bool) {
        self.name = name
        self.mode = mode
        self.noDowngrade = noDowngrade
    }

    /// `mode` as a known MCUboot mode (`.unknown` for numbers this library does not know).
    public var bootloaderMode: BootloaderMode? {
        mode.map { BootloaderMode(rawValue: $0) ?? .unknown }
    }
}

/// OS bootloader info request: `{}` for the name, or `{"query": "mode"}`.
public struct BootloaderInfoRequest: Codable, Sendable, Equatable {
    /// The query; `nil` leaves the key out.
    public var query: String?

    /// Makes a request.
    public init(query: String? = nil) { self.query = query }
}

/// OS bootloader info response: `{"bootloader": text}` or `{"mode": int, "no-downgrade": bool}`;
/// either `bootloader` or `mode` is required (`{}` is not an answer), the rest is optional, so a
/// device that answers the mode query with `{"mode": 3}` alone is read.
public struct BootloaderInfoResponse: Codable, Sendable, Equatable {
    /// The bootloader's name.
    public var bootloader: String?
    /// The mode number.
    public var mode: Int?
    /// Present (and true) only when downgrades are refused.
    public var noDowngrade: Bool?

    /// Makes a response.
    public init(bootloader: String? = nil, mode: Int? = nil, noDowngrade: Bool? = nil) {
        self.bootloader = bootloader
        self.mode = mode
        self.noDowngrade = noDowngrade
    }

    /// Reads the response; an answer with neither `bootloader` nor `mode` is refused.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bootloader = try container.decodeIfPresent(String.self, forKey: .bootloader)
        mode = try container.decodeIfPresent(Int.self, forKey: .mode)
        noDowngrade = try container.decodeIfPresent(Bool.self, forKey: .noDowngrade)
        guard bootloader != nil || mode != nil else {
            throw DecodingError.keyNotFound(
                CodingKeys.bootloader, .init(codingPath: container.codingPath, debugDescription: "no \"bootloader\" and no \"mode\" in the map"))
        }
    }

    private enum CodingKeys: String, CodingKey {
        case bootloader, mode, noDowngrade = "no-downgrade"
    }
}

extension BootloaderInfo: CustomStringConvertible {
    /// `MCUboot, mode 3 (swap using move), downgrades allowed`; `unknown` for what the device did not say.
    public var description: String {
        let mode = self.mode.map { "mode \($0) (\(bootloaderMode?.description ?? "unknown"))" } ?? "mode unknown"
        return "\(name ?? "unknown bootloader"), \(mode), \(noDowngrade ? "downgrades refused" : "downgrades allowed")"
    }
}
