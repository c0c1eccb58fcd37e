import Hex
import McuBoot
import McuMgr

/// `McuBootImageInfo` as text for people, in the order `imgtool dumpinfo` shows it.
public enum ImageInfoText {
    /// The image info of `file` in lines; `signatureVerified` is the result of a `--key` check, if any.
    public static func text(file: String, info: McuBootImageInfo, signatureVerified: Bool?) -> String {
        let h = info.header
        var lines = [file]
        func field(_ name: String, _ value: String) {
            lines.append("  " + TextFormat.left(name + ":", 20) + value)
        }
        field("version", h.version.description + (h.version.build == 0 ? "" : " (device shows \(h.version.deviceString))"))
        field("magic", hexNumber(h.magic, digits: 8))
        field("load address", hexNumber(h.loadAddress, digits: 8))
        field("header size", "\(h.headerSize) bytes (\(hexNumber(h.headerSize)))")
        field("image size", "\(h.imageSize) bytes (\(hexNumber(h.imageSize)))")
        field("protected TLV size", "\(h.protectedTLVSize) bytes")
        field("flags", h.flagNames.isEmpty ? "none (0x0)" : h.flagNames.joined(separator: ", ") + " (\(hexNumber(h.flags.rawValue)))")
        let verdict = info.hashVerifies ? "verifies" : "DOES NOT VERIFY (contents hash to \(info.computedHash.hexString))"
        field("hash", "\(info.hashAlgorithm) \(info.hash.hexString), \(verdict)")
        if info.signatureKinds.isEmpty {
            field("signature", "none (unsigned)")
        } else {
            let check = signatureVerified.map { $0 ? ", verified with the key given" : ", DOES NOT VERIFY with the keys given" } ?? ""
            field("signature", info.signatureKinds.map(\.description).joined(separator: ", ") + check)
        }
        field("key hash", info.keyHash.map(\.hexString).map { $0 + (info.publicKey != nil ? " (of the embedded public key)" : "") } ?? "none")
        field("security counter", info.securityCounter.map(String.init) ?? "none")
        field("dependencies", info.dependencies.isEmpty ? "none"
            : info.dependencies.map { "image \($0.imageID) at \($0.minimumVersion) or later" }.joined(separator: "; "))
        field("trailer", trailerText(info))
        field("file size", "\(info.fileSize) bytes")
        field("file SHA-256", info.fileSHA256.hexString)
        for area in [info.protectedArea, info.unprotectedArea].compactMap({ $0 }) {
            lines.append("  \(area.isProtected ? "protected TLVs" : "TLVs") at \(hexNumber(area.offset)), \(area.size) bytes (magic \(hexNumber(area.magic, digits: 4))):")
            for tlv in area.tlvs {
                let name = TextFormat.left((tlv.type.name ?? "UNKNOWN") + " (\(hexNumber(tlv.type.rawValue)))", 24)
                let value = tlv.value.count > 32 ? tlv.value.prefix(32).hexString + "…" : tlv.value.hexString
                lines.append("    \(name)\(TextFormat.right(String(tlv.length), 4)) bytes  \(value)")
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func trailerText(_ info: McuBootImageInfo) -> String {
        guard let t = info.trailer else { return "none (no padding after the image)" }
        var text = "\(t.paddingSize) bytes of padding and trailer"
        guard let maxAlign = t.maxAlign else { return text + "; no valid trailer magic (\(t.magic.hexString))" }
        text += "; magic valid (max align \(maxAlign))"
        func flag(_ name: String, _ value: UInt8?) -> String? {
            value.map { "\(name) \($0 == 0x01 ? "set" : $0 == 0xff ? "unset" : hexNumber($0))" }
        }
        let flags = [flag("image_ok", t.imageOK), flag("copy_done", t.copyDone), flag("swap_info", t.swapInfo)].compactMap { $0 }
        if !flags.isEmpty { text += ", " + flags.joined(separator: ", ") }
        if let size = t.swapSize { text += ", swap size " + (size == 0xffff_ffff ? "unset" : "\(size)") }
        return text
    }

    /// `0x`-prefixed lowercase hex of `value`, at least `digits` digits.
    private static func hexNumber<T: BinaryInteger>(_ value: T, digits: Int = 1) -> String {
        let text = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
