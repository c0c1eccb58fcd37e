/// Why a slot holds no listable image (image group error codes, smp-reference §4.3).
enum DeviceImageError: Int, Error, Sendable {
    case noImage = 3
    case noTLVs = 4
    case invalidTLV = 5
    case multipleHashes = 6
    case tlvInvalidSize = 7
    case hashNotFound = 8
    case invalidHeaderMagic = 23
}
