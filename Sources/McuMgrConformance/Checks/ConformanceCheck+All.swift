extension ConformanceCheck {
    /// Every check, in the order a run takes them: framing, CBOR, OS, image, file system,
    /// settings, transport, and last the comparison of the image table with the one found.
    public static let all: [ConformanceCheck] =
        header + buffers + malformedPackets + cbor + os + imageState + imageUpload + imageSwap + fileSystem + settings + transport
        + [imageRestored]
}
