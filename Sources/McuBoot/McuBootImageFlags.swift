/// The `ih_flags` bits of an MCUboot image header (`IMAGE_F_*`).
public struct McuBootImageFlags: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The raw 32-bit flags word.
    public var rawValue: UInt32

    /// Creates flags from the raw header word.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// `IMAGE_F_PIC` (0x01): position-independent code (not supported by MCUboot).
    public static let pic = McuBootImageFlags(rawValue: 0x01)
    /// `IMAGE_F_ENCRYPTED_AES128` (0x04): the payload is AES-128 encrypted.
    public static let encryptedAES128 = McuBootImageFlags(rawValue: 0x04)
    /// `IMAGE_F_ENCRYPTED_AES256` (0x08): the payload is AES-256 encrypted.
    public static let encryptedAES256 = McuBootImageFlags(rawValue: 0x08)
    /// `IMAGE_F_NON_BOOTABLE` (0x10): the image must not be booted (e.g. a network-core part).
    public static let nonBootable = McuBootImageFlags(rawValue: 0x10)
    /// `IMAGE_F_RAM_LOAD` (0x20): the image is copied to RAM at the load address and run there.
    public static let ramLoad = McuBootImageFlags(rawValue: 0x20)
    /// `IMAGE_F_ROM_FIXED` (0x100): the image is built for the flash address in the load-address field.
    public static let romFixed = McuBootImageFlags(rawValue: 0x100)
    /// `IMAGE_F_COMPRESSED_LZMA1` (0x200): the payload is LZMA1-compressed.
    public static let compressedLZMA1 = McuBootImageFlags(rawValue: 0x200)
    /// `IMAGE_F_COMPRESSED_LZMA2` (0x400): the payload is LZMA2-compressed.
    public static let compressedLZMA2 = McuBootImageFlags(rawValue: 0x400)
    /// `IMAGE_F_COMPRESSED_ARM_THUMB_FLT` (0x800): the compressed payload used the ARM Thumb filter.
    public static let compressedARMThumb = McuBootImageFlags(rawValue: 0x800)

    private static let names: [(McuBootImageFlags, String)] = [
        (.pic, "PIC"), (.encryptedAES128, "ENCRYPTED_AES128"), (.encryptedAES256, "ENCRYPTED_AES256"),
        (.nonBootable, "NON_BOOTABLE"), (.ramLoad, "RAM_LOAD"), (.romFixed, "ROM_FIXED"),
        (.compressedLZMA1, "COMPRESSED_LZMA1"), (.compressedLZMA2, "COMPRESSED_LZMA2"),
        (.compressedARMThumb, "COMPRESSED_ARM_THUMB"),
    ]

    /// The set flags by imgtool name, e.g. `["NON_BOOTABLE", "RAM_LOAD"]`; unknown bits last, in hex.
    public var names: [String] {
        var parts = Self.names.filter { contains($0.0) }.map(\.1)
        let known = Self.names.reduce(UInt32(0)) { $0 | $1.0.rawValue }
        if rawValue & ~known != 0 { parts.append(hex(rawValue & ~known, width: 8)) }
        return parts
    }

    /// The set flags by imgtool name, e.g. `[NON_BOOTABLE, RAM_LOAD]`; unknown bits in hex.
    public var description: String {
        "[" + names.joined(separator: ", ") + "]"
    }
}
