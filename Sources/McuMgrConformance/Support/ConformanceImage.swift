import McuBoot
import SMP

/// The small MCUboot image the upload checks send when they need no image the device can boot:
/// an unsigned image with a SHA-256 TLV and a pseudo-random payload. It is uploaded, never marked
/// for test, and erased again.
enum ConformanceImage {
    /// The image: version 0.0.0+`seed`, `payloadSize` bytes of payload from `seed`.
    static func make(payloadSize: Int = 8 * 1024, seed: UInt32 = 0xc0f) -> [UInt8] {
        var random = SeededRandom(seed: UInt64(seed))
        let builder = McuBootImageBuilder(payload: random.bytes(payloadSize), version: McuBootVersion(major: 0, build: seed))
        // A 32-byte header, a payload and one hash TLV: nothing the builder can refuse.
        return (try? builder.build()) ?? []
    }

    /// The image's hash (its SHA-256 TLV, as the image table lists it), or `nil` for bytes that are not an MCUboot image.
    static func hash(of image: [UInt8]) -> [UInt8]? {
        (try? McuBootImage(bytes: image))?.hash
    }
}
