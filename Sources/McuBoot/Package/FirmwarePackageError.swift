/// Why a DFU package (or a SUIT envelope file) cannot be used; found before anything is sent.
public enum FirmwarePackageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The archive cannot be read: not a zip, broken, too many entries (the reader's message).
    case archive(String)
    /// The archive has no `manifest.json`.
    case missingManifest
    /// `manifest.json` is not a manifest this reader understands (the message says where).
    case invalidManifest(String)
    /// The manifest lists no file.
    case empty
    /// The manifest lists more files than the limits allow.
    case tooManyFiles(count: Int, limit: Int)
    /// A file the manifest lists is not in the archive.
    case missingFile(String)
    /// A file's size differs from the size the manifest gives.
    case sizeMismatch(String, manifest: Int, actual: Int)
    /// A file declares, or inflates to, more than `limit` bytes (a zip bomb, or the wrong file);
    /// `"the package"` when all files together pass the total limit.
    case tooLarge(String, limit: Int)
    /// A file that should be an MCUboot image is not one (or its hash does not match).
    case notAnMCUbootImage(String, McuBootError)
    /// Two files are for the same image number (and are not a direct-XIP pair for two slots).
    case duplicateImage(Int, [String])
    /// An image's slot is neither of its image's two slots.
    case invalidSlot(String, slot: Int, image: Int)
    /// The SUIT envelope cannot be read.
    case invalidEnvelope(String, SUITEnvelopeError)
    /// The package holds content this tool cannot send (the message says which and why).
    case unsupportedContent(String, String)

    /// A one-line message naming the file and what is wrong.
    public var description: String {
        switch self {
        case .archive(let why): return "not a readable DFU package: \(why)"
        case .missingManifest: return "not a DFU package: the zip has no manifest.json"
        case .invalidManifest(let why): return "invalid manifest.json: \(why)"
        case .empty: return "manifest.json lists no file"
        case .tooManyFiles(let count, let limit): return "manifest.json lists \(count) files, more than the \(limit) a package may hold"
        case .missingFile(let name): return "manifest.json lists \(name), which is not in the package"
        case .sizeMismatch(let name, let manifest, let actual):
            return "\(name) has \(actual) bytes, but manifest.json gives \(manifest); the package is damaged"
        case .tooLarge(let name, let limit): return "\(name) is larger than \(limit) bytes once inflated (a zip bomb, or the wrong file)"
        case .notAnMCUbootImage(let name, let error): return "\(name) in the package is not a valid MCUboot image: \(error)"
        case .duplicateImage(let image, let files):
            return "\(files.joined(separator: " and ")) are both for image \(image); a package holds one image per image number"
        case .invalidSlot(let name, let slot, let image): return "\(name) is for slot \(slot), which is not a slot of image \(image)"
        case .invalidEnvelope(let name, let error): return "\(name): \(error)"
        case .unsupportedContent(let name, let why): return "\(name): \(why)"
        }
    }
}
