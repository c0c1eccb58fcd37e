import CBOR

/// One memory pool's statistics from OS command 3 (memory pool statistics).
public struct MemoryPoolStat: Codable, Sendable, Equatable {
    /// Size of one block, in bytes.
    public var blockSize: Int
    /// Number of blocks.
    public var blockCount: Int
    /// Blocks free now.
    public var freeBlocks: Int
    /// Fewest blocks ever free.
    public var minimumFree: Int

    /// Makes a statistics record.
    public init(blockSize: Int, blockCount: Int, freeBlocks: Int, minimumFree: Int) {
        self.blockSize = blockSize
        self.blockCount = blockCount
        self.freeBlocks = freeBlocks
        self.minimumFree = minimumFree
    }

    private enum CodingKeys: String, CodingKey {
        case blockSize = "blksiz", blockCount = "nblks", freeBlocks = "nfree", minimumFree = "min"
    }
}

/// OS memory pool statistics response.
///
/// Mynewt wraps the pools as `{"mpools": {name: stats}}`; Zephyr's documentation puts them at the
/// top level `{name: stats}`. Both shapes are read; top-level entries that are not maps (such as
/// `rc`) are skipped. An answer with neither `mpools` nor a pool (`{}`) is not an answer: a device
/// without the command says so with an error.
public struct MemoryPoolStatsResponse: Decodable, Sendable, Equatable {
    /// Statistics by pool name.
    public var pools: [String: MemoryPoolStat]

    /// Makes a response.
    public init(pools: [String: MemoryPoolStat]) { self.pools = pools }

    /// Reads either shape.
    public init(from decoder: any Decoder) throws {
        let map = try decoder.singleValueContainer().decode(CBORValue.self)
        let source = map["mpools"] ?? map
        var pools: [String: MemoryPoolStat] = [:]
        for entry in source.mapEntries ?? [] {
            guard let name = entry.key.textValue, case .map = entry.value else { continue }
            pools[name] = try CBORDecoder().decode(MemoryPoolStat.self, from: entry.value)
        }
        guard map["mpools"] != nil || !pools.isEmpty else {
            throw DecodingError.keyNotFound(CodingKeys.mpools, .init(codingPath: [], debugDescription: "no \"mpools\" and no pool in the map"))
        }
        self.pools = pools
    }

    private enum CodingKeys: String, CodingKey { case mpools }
}
