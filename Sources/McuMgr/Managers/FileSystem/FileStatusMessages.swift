/// A request naming one file (group 8, commands 1 status): `{"name": path}`.
public struct FileStatusRequest: Codable, Sendable, Equatable {
    /// The file's absolute path on the device.
    public var name: String

    /// Makes a request.
    public init(name: String) { self.name = name }
}

/// File status response: `{"len": uint}`.
public struct FileStatusResponse: Codable, Sendable, Equatable {
    /// The file's size in bytes.
    public var length: Int

    /// Makes a response.
    public init(length: Int) { self.length = length }

    private enum CodingKeys: String, CodingKey { case length = "len" }
}
