import SMP

/// Runs test suites on the device (run command 0): `{"testname"?: tstr, "token"?: tstr}`; no name
/// (or `all`) runs every suite. Mynewt answers at once and logs the results.
public struct RunTestRequest: SMPRequest {
    /// No fields.
    public typealias Response = SMPEmptyMessage
    /// A write.
    public static var operation: SMPOperation { .write }
    /// The run group.
    public static var group: SMPGroup { .run }
    /// Command 0.
    public static var command: UInt8 { 0 }
    /// The suite to run; nil runs every suite.
    public var testname: String?
    /// Text added to the result lines in the device log.
    public var token: String?

    /// Makes the request.
    public init(testName: String? = nil, token: String? = nil) {
        testname = testName
        self.token = token
    }
}

/// Lists the device's test suites (run command 1).
public struct RunListRead: SMPFieldlessRequest {
    /// `{"run_list": [tstr]}`.
    public typealias Response = RunList
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The run group.
    public static var group: SMPGroup { .run }
    /// Command 1.
    public static var command: UInt8 { 1 }
    /// Makes the request.
    public init() {}
}

/// The answer to ``RunListRead``.
public struct RunList: Codable, Sendable, Hashable {
    /// The suites' names.
    public var suites: [String]

    /// Makes a list.
    public init(suites: [String]) { self.suites = suites }

    enum CodingKeys: String, CodingKey { case suites = "run_list" }
}
