/// Shell execute request (group 9, command 0): `{"argv": [command, arguments...]}`.
public struct ShellExecuteRequest: Codable, Sendable, Equatable {
    /// The command and its arguments; the device joins them with single spaces.
    public var argv: [String]

    /// Makes a request.
    public init(argv: [String]) { self.argv = argv }
}

/// What a shell command printed and returned: `{"o": text, "ret": int}`.
public struct ShellResult: Codable, Sendable, Equatable {
    /// The command's captured output.
    public var output: String
    /// The command's return value (negative errno for an unknown command on Zephyr).
    public var returnCode: Int

    /// Makes a result.
    public init(output: String, returnCode: Int) {
        self.output = output
        self.returnCode = returnCode
    }

    /// Reads `o` and `ret` (both required); without `ret`, a legacy `rc` is the return value.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        output = try c.decode(String.self, forKey: .output)
        if let legacy = try c.decodeIfPresent(Int.self, forKey: .legacyReturnCode), !c.contains(.returnCode) {
            returnCode = legacy
        } else {
            returnCode = try c.decode(Int.self, forKey: .returnCode)
        }
    }

    /// Writes `o` and `ret`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(output, forKey: .output)
        try c.encode(returnCode, forKey: .returnCode)
    }

    private enum CodingKeys: String, CodingKey { case output = "o", returnCode = "ret", legacyReturnCode = "rc" }
}
