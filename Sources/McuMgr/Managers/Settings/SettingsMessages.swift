import Hex

/// Settings read request (group 3, command 0, read): `{"name": key, "max_size": uint (optional)}`.
public struct SettingsReadRequest: Codable, Sendable, Equatable {
    /// The setting's key, e.g. `"app/name"`.
    public var name: String
    /// The most bytes to return; `nil` leaves the key out (the device's default applies).
    public var maxSize: Int?

    /// Makes a request.
    public init(name: String, maxSize: Int? = nil) {
        self.name = name
        self.maxSize = maxSize
    }

    private enum CodingKeys: String, CodingKey { case name, maxSize = "max_size" }
}

/// A setting's value as read (group 3, command 0): `{"val": bstr, "max_size": uint (optional)}`.
///
/// The device does not say how to interpret the bytes: the caller must know the setting's type.
public struct SettingValue: Codable, Sendable, Equatable {
    /// The setting's raw bytes.
    public var value: [UInt8]
    /// The device's limit, present when the requested `maxSize` was larger and was clamped to it.
    public var maxSize: Int?

    /// Makes a value.
    public init(value: [UInt8], maxSize: Int? = nil) {
        self.value = value
        self.maxSize = maxSize
    }

    /// Reads the value from its byte string.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        value = try c.decodeByteString(forKey: .value)
        maxSize = try c.decodeIfPresent(Int.self, forKey: .maxSize)
    }

    /// Writes the value as a byte string.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeByteString(value, forKey: .value)
        try c.encodeIfPresent(maxSize, forKey: .maxSize)
    }

    private enum CodingKeys: String, CodingKey { case value = "val", maxSize = "max_size" }
}

/// Settings write request (group 3, command 0, write): `{"name": key, "val": bstr}`.
public struct SettingsWriteRequest: Codable, Sendable, Equatable {
    /// The setting's key.
    public var name: String
    /// The raw bytes to store.
    public var value: [UInt8]

    /// Makes a request.
    public init(name: String, value: [UInt8]) {
        self.name = name
        self.value = value
    }

    /// Reads a request.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        value = try c.decodeByteString(forKey: .value)
    }

    /// Writes the value as a byte string.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encodeByteString(value, forKey: .value)
    }

    private enum CodingKeys: String, CodingKey { case name, value = "val" }
}

/// Settings delete request (group 3, command 1): `{"name": key}`.
public struct SettingsDeleteRequest: Codable, Sendable, Equatable {
    /// The setting's key.
    public var name: String

    /// Makes a request.
    public init(name: String) { self.name = name }
}

extension SettingValue: CustomStringConvertible {
    /// The value as text when it is valid UTF-8, else as hex with a `0x` prefix.
    public var description: String {
        String(validating: value, as: UTF8.self) ?? "0x" + value.hexString
    }
}
