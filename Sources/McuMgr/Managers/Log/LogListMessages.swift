import CBOR

/// Log module list response (group 4, command 3): `{"module_map": {name: id}}`.
public struct LogModuleListResponse: Codable, Sendable, Equatable {
    /// Module ids by module name.
    public var modules: [String: Int]

    /// Makes a response.
    public init(modules: [String: Int]) { self.modules = modules }

    /// Reads the response; an absent map reads as empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        modules = try c.decodeIfPresent([String: Int].self, forKey: .modules) ?? [:]
    }

    private enum CodingKeys: String, CodingKey { case modules = "module_map" }
}

/// Log level list response (group 4, command 4): `{"level_map": [name, ...]}` or `{"level_map": {name: level}}`.
public struct LogLevelListResponse: Decodable, Sendable, Equatable {
    /// The level names, by ascending level when the device gives numbers.
    public var levels: [String]

    /// Makes a response.
    public init(levels: [String]) { self.levels = levels }

    /// Reads either shape.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let map = try c.decodeIfPresent(CBORValue.self, forKey: .levels) else {
            levels = []
            return
        }
        switch map {
        case .array(let items):
            levels = try items.map {
                guard let name = $0.textValue else {
                    throw DecodingError.dataCorruptedError(forKey: .levels, in: c, debugDescription: "level name \($0) is not text")
                }
                return name
            }
        case .map(let entries):
            let named = entries.compactMap { entry in entry.key.textValue.map { (name: $0, level: entry.value.intValue ?? Int.max) } }
            levels = named.sorted { ($0.level, $0.name) < ($1.level, $1.name) }.map(\.name)
        default:
            throw DecodingError.dataCorruptedError(forKey: .levels, in: c, debugDescription: "expected an array or a map, found \(map)")
        }
    }

    private enum CodingKeys: String, CodingKey { case levels = "level_map" }
}

/// Log list response (group 4, command 5): `{"log_list": [name, ...]}`.
public struct LogListResponse: Codable, Sendable, Equatable {
    /// The names of the device's logs.
    public var names: [String]

    /// Makes a response.
    public init(names: [String]) { self.names = names }

    /// Reads the response; an absent list reads as empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        names = try c.decodeIfPresent([String].self, forKey: .names) ?? []
    }

    private enum CodingKeys: String, CodingKey { case names = "log_list" }
}
