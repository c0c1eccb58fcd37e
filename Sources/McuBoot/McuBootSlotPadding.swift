/// Padding an image to a whole flash slot with an MCUboot trailer, as `imgtool create --pad`
/// (with `--slot-size`, `--align`, `--max-align`, `--max-sectors`, `--overwrite-only`,
/// `--erased-val`, `--test`, `--confirm`) does.
public struct McuBootSlotPadding: Sendable, Hashable {
    /// What the trailer asks of MCUboot at the next boot.
    public enum Mark: Sendable, Hashable {
        /// Only the trailer magic (`--pad`): MCUboot sees a valid magic with `image_ok` unset.
        case none
        /// `--test`: the same bytes as `.none` (a test swap).
        case test
        /// `--confirm`: `image_ok` set to 0x01, a permanent swap.
        case confirm
    }

    /// Slot size in bytes (`--slot-size`); the padded image has exactly this size.
    public var slotSize: Int
    /// Flash write alignment of the swap modes (`--align`: 1, 2, 4, 8, 16 or 32).
    public var align: Int
    /// Maximum flash alignment (`--max-align`: 8, 16 or 32); nil means max(8, align).
    public var maxAlign: Int?
    /// Number of sectors the swap-status area allows for (`--max-sectors`, default 128).
    public var maxSectors: Int
    /// Overwrite-only upgrades (`--overwrite-only`): a shorter trailer, and `mark` is ignored.
    public var overwriteOnly: Bool
    /// The value erased flash reads as (`--erased-val`: 0xff or 0).
    public var erasedValue: UInt8
    /// Test or confirm marking.
    public var mark: Mark

    /// Creates a slot padding configuration with imgtool's defaults.
    public init(
        slotSize: Int, align: Int = 1, maxAlign: Int? = nil, maxSectors: Int = 128,
        overwriteOnly: Bool = false, erasedValue: UInt8 = 0xff, mark: Mark = .none
    ) {
        self.slotSize = slotSize
        self.align = align
        self.maxAlign = maxAlign
        self.maxSectors = maxSectors
        self.overwriteOnly = overwriteOnly
        self.erasedValue = erasedValue
        self.mark = mark
    }

    /// The effective maximum alignment.
    var effectiveMaxAlign: Int { maxAlign ?? max(8, align) }

    /// The 16-byte trailer magic for the effective maximum alignment.
    var bootMagic: [UInt8] {
        let maxAlign = effectiveMaxAlign
        if maxAlign == 8 {
            return [0x77, 0xc2, 0x95, 0xf3, 0x60, 0xd2, 0xef, 0x7f, 0x35, 0x52, 0x50, 0x0f, 0x2c, 0xb6, 0x79, 0x80]
        }
        return [UInt8(maxAlign & 0xff), UInt8((maxAlign >> 8) & 0xff)]
            + [0x2d, 0xe1, 0x5d, 0x29, 0x41, 0x0b, 0x8d, 0x77, 0x67, 0x9c, 0x11, 0x0f, 0x1f, 0x8a]
    }

    /// The 16-byte magic rounded up to whole maximum-alignment units.
    var magicAlignSize: Int { (16 + effectiveMaxAlign - 1) / effectiveMaxAlign * effectiveMaxAlign }

    /// Size of the trailer area imgtool reserves (without encryption keys).
    var trailerSize: Int {
        if overwriteOnly { return effectiveMaxAlign * 2 + magicAlignSize }
        return maxSectors * 3 * align + effectiveMaxAlign * 4 + magicAlignSize
    }

    /// Checks the settings against what imgtool accepts.
    func validate() throws(McuBootError) {
        guard [1, 2, 4, 8, 16, 32].contains(align) else {
            throw .invalidBuilderParameter("align must be 1, 2, 4, 8, 16 or 32, not \(align)")
        }
        if let maxAlign, ![8, 16, 32].contains(maxAlign) {
            throw .invalidBuilderParameter("maxAlign must be 8, 16 or 32, not \(maxAlign)")
        }
        guard (0...1 << 20).contains(maxSectors) else {
            throw .invalidBuilderParameter("maxSectors must be between 0 and 1048576, not \(maxSectors)")
        }
        guard slotSize >= 0, UInt64(slotSize) <= UInt64(UInt32.max) else {
            throw .invalidBuilderParameter("slotSize must fit in 32 bits, not \(slotSize)")
        }
        guard erasedValue == 0 || erasedValue == 0xff else {
            throw .invalidBuilderParameter("erasedValue must be 0x00 or 0xff")
        }
    }

    /// `image` padded to the slot with the trailer, as imgtool's `pad_to`.
    func pad(_ image: [UInt8]) throws(McuBootError) -> [UInt8] {
        try validate()
        let trailerSize = trailerSize
        guard image.count <= slotSize - trailerSize else {
            throw .invalidBuilderParameter(
                "image size (\(hex(image.count, width: 4))) + trailer (\(hex(trailerSize, width: 4))) exceeds "
                    + "the slot size \(hex(slotSize, width: 4))")
        }
        let magic = bootMagic
        var out = image
        out.reserveCapacity(slotSize)
        out.append(contentsOf: repeatElement(erasedValue, count: slotSize - image.count - magic.count))
        out.append(contentsOf: magic)
        if mark == .confirm && !overwriteOnly {
            out[out.count - magicAlignSize - effectiveMaxAlign] = 0x01
        }
        return out
    }
}
