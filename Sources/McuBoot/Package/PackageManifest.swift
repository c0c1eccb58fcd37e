#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `manifest.json` of an nRF Connect SDK DFU package (`dfu_application.zip`), in both layouts
/// NCS has shipped: the older one (no `format-version`, `image_index` as a string) and sysbuild's
/// `"format-version": 1` (`image` or `image_index`, `version_MCUBOOT+XIP` for direct-XIP builds,
/// `"type": "suit-envelope"` for SUIT). Unknown keys are ignored.
public struct PackageManifest: Sendable, Hashable {
    /// `format-version`: 0 when absent (the older layout), 1 with sysbuild.
    public var formatVersion: Int
    /// `name`, e.g. `dfu_application`.
    public var name: String?
    /// `time`: when the package was made (seconds since 1970).
    public var time: Int?
    /// The files the package holds.
    public var files: [File]

    /// One entry of `files`.
    public struct File: Sendable, Hashable {
        /// `file`: the name of the file in the archive.
        public var file: String
        /// `size`: its size in bytes.
        public var size: Int?
        /// `type`: `application`, `bin`, `mcuboot`, `suit-envelope`, `cache`, …
        public var type: String?
        /// `board`.
        public var board: String?
        /// `soc`.
        public var soc: String?
        /// `load_address` (a number, a numeric string, or the bare hex literal older NCS wrote).
        public var loadAddress: UInt64?
        /// The image number: `image` or `image_index` (a string in the older layout), or a SUIT cache's `partition`.
        public var imageIndex: Int?
        /// `slot`: the slot the image is built for (direct-XIP packages list one file per slot), if given.
        public var slot: Int?
        /// `version_MCUBOOT` or `version_MCUBOOT+XIP`.
        public var mcubootVersion: String?
        /// Whether the entry has `version_MCUBOOT+XIP` (a direct-XIP build).
        public var isDirectXIP: Bool
        /// Whether the entry has `version_B0` (an image for nRF's immutable bootloader, not MCUboot).
        public var isB0Image: Bool
        /// `modtime`.
        public var modificationTime: Int?

        /// What the entry holds.
        public var kind: Kind {
            switch type {
            case "suit-envelope": return .suitEnvelope
            case "cache": return .suitCache
            default: return isB0Image && mcubootVersion == nil ? .b0Image : .other
            }
        }

        /// What a manifest entry holds.
        public enum Kind: Sendable, Hashable {
            /// A SUIT envelope (`suit-envelope`).
            case suitEnvelope
            /// A raw image for a SUIT cache partition (`cache`).
            case suitCache
            /// An image for nRF's immutable bootloader (`version_B0`), which SMP does not update.
            case b0Image
            /// Anything else: an MCUboot image in an MCUboot package, a resource in a SUIT package.
            case other
        }

        /// Makes an entry (as a test writes a manifest).
        public init(
            file: String, size: Int? = nil, type: String? = nil, board: String? = nil, soc: String? = nil,
            loadAddress: UInt64? = nil, imageIndex: Int? = nil, slot: Int? = nil, mcubootVersion: String? = nil,
            isDirectXIP: Bool = false, isB0Image: Bool = false, modificationTime: Int? = nil
        ) {
            self.file = file
            self.size = size
            self.type = type
            self.board = board
            self.soc = soc
            self.loadAddress = loadAddress
            self.imageIndex = imageIndex
            self.slot = slot
            self.mcubootVersion = mcubootVersion
            self.isDirectXIP = isDirectXIP
            self.isB0Image = isB0Image
            self.modificationTime = modificationTime
        }
    }

    /// Makes a manifest.
    public init(formatVersion: Int = 0, name: String? = nil, time: Int? = nil, files: [File]) {
        self.formatVersion = formatVersion
        self.name = name
        self.time = time
        self.files = files
    }

    /// Reads `manifest.json`; a text that is not such a manifest throws `invalidManifest` saying why.
    public init(json bytes: [UInt8]) throws(FirmwarePackageError) {
        let text = Self.quotingHexLiterals(bytes)
        let raw: RawManifest
        do {
            raw = try JSONDecoder().decode(RawManifest.self, from: Data(text))
        } catch let DecodingError.keyNotFound(key, context) {
            throw .invalidManifest("\(Self.path(context.codingPath + [key])) is missing")
        } catch let DecodingError.typeMismatch(_, context) {
            throw .invalidManifest("\(Self.path(context.codingPath)) has the wrong type: \(context.debugDescription)")
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            throw .invalidManifest("\(Self.path(context.codingPath)): \(context.debugDescription)")
        } catch {
            throw .invalidManifest("it is not JSON")
        }
        formatVersion = raw.formatVersion ?? 0
        name = raw.name
        time = raw.time
        files = raw.files.map(\.file)
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "the manifest" : keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
    }

    /// The JSON with every bare hex number (`"load_address": 0x10000`, not JSON, written by some NCS
    /// releases) turned into a string, which the number reader takes.
    static func quotingHexLiterals(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var inString = false, escaped = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                out.append(byte)
                index += 1
                continue
            }
            if byte == UInt8(ascii: "\"") { inString = true }
            let isHexStart = byte == UInt8(ascii: "0") && index + 1 < bytes.count && (bytes[index + 1] | 0x20) == UInt8(ascii: "x")
                && (index == 0 || !Self.isWordByte(bytes[index - 1]))
            if isHexStart {
                var end = index + 2
                while end < bytes.count, Self.isWordByte(bytes[end]) { end += 1 }
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: bytes[index..<end])
                out.append(UInt8(ascii: "\""))
                index = end
                continue
            }
            out.append(byte)
            index += 1
        }
        return out
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7a) || byte == UInt8(ascii: "_")
    }
}

/// The manifest as JSON has it, numbers that may be strings and all.
private struct RawManifest: Decodable {
    var formatVersion: Int?
    var name: String?
    var time: Int?
    var files: [RawFile]

    enum CodingKeys: String, CodingKey {
        case formatVersion = "format-version", name, time, files
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        formatVersion = try c.flexibleInteger(.formatVersion).map(Int.init)
        name = try? c.decodeIfPresent(String.self, forKey: .name)
        time = try? c.flexibleInteger(.time).map(Int.init)
        files = try c.decode([RawFile].self, forKey: .files)
    }
}

private struct RawFile: Decodable {
    var file: PackageManifest.File

    enum CodingKeys: String, CodingKey {
        case file, size, type, board, soc, slot, modtime, image, partition
        case loadAddress = "load_address", imageIndex = "image_index"
        case version = "version_MCUBOOT", xipVersion = "version_MCUBOOT+XIP", b0Version = "version_B0"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let name = try c.decode(String.self, forKey: .file)
        let xip = try c.decodeIfPresent(String.self, forKey: .xipVersion)
        let version = try xip ?? c.decodeIfPresent(String.self, forKey: .version)
        let index = try c.flexibleInteger(.image) ?? c.flexibleInteger(.imageIndex) ?? c.flexibleInteger(.partition)
        file = PackageManifest.File(
            file: name, size: try c.flexibleInteger(.size).map(Int.init), type: try c.decodeIfPresent(String.self, forKey: .type),
            board: try? c.decodeIfPresent(String.self, forKey: .board), soc: try? c.decodeIfPresent(String.self, forKey: .soc),
            loadAddress: (try? c.flexibleInteger(.loadAddress)).flatMap { $0.map(UInt64.init(bitPattern:)) },
            imageIndex: index.map(Int.init), slot: try c.flexibleInteger(.slot).map(Int.init),
            mcubootVersion: version, isDirectXIP: xip != nil,
            isB0Image: c.contains(.b0Version), modificationTime: (try? c.flexibleInteger(.modtime)).flatMap { $0.map(Int.init) })
        if let size = file.size, size < 0 { throw DecodingError.dataCorruptedError(forKey: .size, in: c, debugDescription: "a size cannot be negative") }
        if let index = file.imageIndex, !(0...15).contains(index) {
            throw DecodingError.dataCorruptedError(forKey: .imageIndex, in: c, debugDescription: "image number \(index) is not 0 to 15")
        }
    }
}

extension KeyedDecodingContainer {
    /// An integer given as a JSON number or as a string of decimal or `0x` hex digits; nil when absent.
    func flexibleInteger(_ key: Key) throws -> Int64? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let number = try? decode(Int64.self, forKey: key) { return number }
        let text = try decode(String.self, forKey: key).trimmingWhitespace()
        let value = text.lowercased().hasPrefix("0x") ? Int64(text.dropFirst(2), radix: 16) : Int64(text)
        guard let value else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "\"\(text)\" is not a number")
        }
        return value
    }
}
