import Crypto
import SMP

/// Makes unsigned MCUboot images for the simulated device: a header, a payload of seeded
/// pseudo-random bytes, and an unprotected TLV area holding the SHA-256 TLV (smp-reference §6.1).
public enum MCUbootImageMaker {
    /// Makes an image file.
    ///
    /// - Parameters:
    ///   - version: the header's version.
    ///   - payloadSize: bytes of application payload.
    ///   - headerSize: `ih_hdr_size` (at least 32; the header is padded with zeros).
    ///   - seed: varies the payload, so that images of the same version differ.
    ///   - bootable: false sets `IMAGE_F_NON_BOOTABLE`.
    public static func make(
        version: ImageVersion, payloadSize: Int, headerSize: Int = 0x200, seed: UInt64 = 0, bootable: Bool = true
    ) -> [UInt8] {
        let headerSize = max(32, headerSize)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerSize + payloadSize + 40)
        bytes.appendLE32(SlotImageInfo.imageMagic)
        bytes.appendLE32(0)  // load address
        bytes.appendLE16(UInt16(headerSize))
        bytes.appendLE16(0)  // protected TLV size
        bytes.appendLE32(UInt32(payloadSize))
        bytes.appendLE32(bootable ? 0 : SlotImageInfo.nonBootableFlag)
        bytes.append(version.major)
        bytes.append(version.minor)
        bytes.appendLE16(version.revision)
        bytes.appendLE32(version.build)
        bytes.appendLE32(0)  // pad
        bytes.append(contentsOf: repeatElement(0, count: headerSize - 32))
        var random = SeededRandom(seed: seed ^ UInt64(version.major) << 56 ^ UInt64(version.minor) << 48
            ^ UInt64(version.revision) << 32 ^ UInt64(version.build))
        var remaining = payloadSize
        while remaining > 0 {
            var word = random.next()
            for _ in 0..<min(8, remaining) {
                bytes.append(UInt8(word & 0xff))
                word >>= 8
            }
            remaining -= min(8, remaining)
        }
        let hash = Array(SHA256.hash(data: bytes))
        bytes.appendLE16(SlotImageInfo.tlvInfoMagic)
        bytes.appendLE16(4 + 4 + 32)
        bytes.appendLE16(0x10)
        bytes.appendLE16(32)
        bytes.append(contentsOf: hash)
        return bytes
    }
}
