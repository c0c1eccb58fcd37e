import Foundation
import ZIPFoundation

/// Writes DFU packages the way nRF Connect SDK lays them out (`dfu_application.zip`: the images and a
/// `manifest.json`), in either manifest layout, for tests. The zip is written through ZIPFoundation
/// with deflate, as NCS's Python `zipfile` writes it.
public enum DFUPackageWriter {
    /// The two manifest layouts NCS has shipped.
    public enum Layout: Sendable, CaseIterable {
        /// Before sysbuild: no `format-version`, `image_index` as a string, `load_address` a number.
        case legacy
        /// Sysbuild: `"format-version": 1`, `image` as a number.
        case sysbuild
    }

    /// One file of a package and its manifest entry.
    public struct File: Sendable {
        /// The name in the zip.
        public var name: String
        /// The bytes.
        public var bytes: [UInt8]
        /// The image number (MCUboot) or cache partition.
        public var image: Int
        /// `type`: `application`, `suit-envelope`, `cache`, `bin`.
        public var type: String
        /// The version written as `version_MCUBOOT` (or `version_MCUBOOT+XIP`); nil writes none.
        public var version: String?
        /// For a direct-XIP image, the slot it is built for (writes `version_MCUBOOT+XIP` and `slot`).
        public var directXIPSlot: Int?
        /// Whether the manifest lists the file (a SUIT resource may be in the zip only).
        public var listed = true

        /// Makes a file.
        public init(name: String, bytes: [UInt8], image: Int = 0, type: String = "application", version: String? = "1.0.0+0", directXIPSlot: Int? = nil) {
            self.name = name
            self.bytes = bytes
            self.image = image
            self.type = type
            self.version = version
            self.directXIPSlot = directXIPSlot
        }
    }

    /// The `manifest.json` NCS writes for `files` in `layout`, as text.
    public static func manifest(_ files: [File], layout: Layout) -> String {
        let boards = ["nrf5340dk_nrf5340_cpuapp", "nrf5340dk_nrf5340_cpunet"]
        var entries: [String] = []
        for file in files where file.listed {
            var fields: [String] = []
            let board = layout == .legacy ? boards[min(file.image, 1)] : boards[min(file.image, 1)].replacingOccurrences(of: "_", with: "/")
            fields.append("\"board\": \"\(board)\"")
            fields.append("\"soc\": \"\(layout == .legacy ? "nRF5340_CPU\(file.image == 0 ? "APP" : "NET")" : "nrf5340")\"")
            if file.type != "suit-envelope" {
                fields.append("\"load_address\": \(file.image == 0 ? 65536 : 16_777_216 + 0x800)")
            }
            switch layout {
            case .legacy:
                fields.append("\"image_index\": \"\(file.image)\"")
                fields.append("\"slot_index_primary\": \"\(file.image * 2 + 1)\"")
                fields.append("\"slot_index_secondary\": \"\(file.image * 2 + 2)\"")
            case .sysbuild:
                fields.append("\"image\": \(file.image)")
            }
            if let version = file.version {
                fields.append(file.directXIPSlot == nil ? "\"version_MCUBOOT\": \"\(version)\"" : "\"version_MCUBOOT+XIP\": \"\(version)\"")
            }
            if let slot = file.directXIPSlot { fields.append("\"slot\": \"\(slot)\"") }
            fields.append("\"type\": \"\(file.type)\"")
            fields.append("\"size\": \(file.bytes.count)")
            fields.append("\"file\": \"\(file.name)\"")
            fields.append("\"modtime\": 1700000000")
            entries.append("    {\n      " + fields.joined(separator: ",\n      ") + "\n    }")
        }
        let head = layout == .sysbuild ? "  \"format-version\": 1,\n" : ""
        return "{\n\(head)  \"time\": 1700000000,\n  \"files\": [\n" + entries.joined(separator: ",\n") + "\n  ],\n  \"name\": \"dfu_application\"\n}\n"
    }

    /// Writes a zip of `files` and, unless nil, `manifest` as `manifest.json`; returns its path.
    @discardableResult
    public static func write(_ files: [File], manifest: String?, to path: String) throws -> String {
        try zip([("manifest.json", manifest.map { Array($0.utf8) })].compactMap { name, bytes in bytes.map { (name, $0) } }
            + files.map { ($0.name, $0.bytes) }, to: path)
        return path
    }

    /// Writes a package of `files` with the manifest of `layout`; returns its path.
    @discardableResult
    public static func write(_ files: [File], layout: Layout, to path: String) throws -> String {
        try write(files, manifest: manifest(files, layout: layout), to: path)
    }

    /// Writes a zip of named byte arrays (deflated) to `path`.
    public static func zip(_ entries: [(name: String, bytes: [UInt8])], to path: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
        for (name, bytes) in entries {
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: .deflate) { position, size in
                Data(bytes[Int(position)..<Int(position) + size])
            }
        }
    }

    /// Writes a zip whose entry `name` inflates to `size` zero bytes but declares `declaredSize` (a zip
    /// bomb: a lying header when `declaredSize` is small), with `manifest` beside it.
    public static func bomb(name: String, size: Int, declaredSize: UInt32, manifest: String, to path: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
        try archive.addEntry(with: "manifest.json", type: .file, uncompressedSize: Int64(manifest.utf8.count), compressionMethod: .deflate) { position, size in
            Data(Array(manifest.utf8)[Int(position)..<Int(position) + size])
        }
        let zeros = Data(count: 1 << 20)
        try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(size), compressionMethod: .deflate) { _, chunk in
            zeros.prefix(chunk)
        }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // The uncompressed size: local header offset 22, central directory header offset 24.
        for (signature, offset) in [([0x50, 0x4b, 0x03, 0x04] as [UInt8], 22), ([0x50, 0x4b, 0x01, 0x02], 24)] {
            var index = 0
            while index + 46 < bytes.count {
                if Array(bytes[index..<index + 4]) == signature {
                    let nameOffset = signature[2] == 0x03 ? 30 : 46
                    let nameLength = Int(bytes[index + (signature[2] == 0x03 ? 26 : 28)]) | Int(bytes[index + (signature[2] == 0x03 ? 27 : 29)]) << 8
                    if index + nameOffset + nameLength <= bytes.count,
                       String(decoding: bytes[(index + nameOffset)..<(index + nameOffset + nameLength)], as: UTF8.self) == name {
                        for byte in 0..<4 { bytes[index + offset + byte] = UInt8((declaredSize >> (8 * UInt32(byte))) & 0xff) }
                    }
                }
                index += 1
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
