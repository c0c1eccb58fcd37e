#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import McuMgr

/// An image file named on the command line, optionally with its image number: `FILE` or `FILE@N`
/// (as `mcumgr upgrade app.bin net.bin@1`).
public struct ImageFileArgument: Sendable, Hashable {
    /// The file's path.
    public var path: String
    /// The image number given with `@N`, if any.
    public var imageIndex: Int?

    /// Makes an argument from its parts.
    public init(path: String, imageIndex: Int?) {
        self.path = path
        self.imageIndex = imageIndex
    }

    /// Splits `FILE@N` into the file and N (digits only), unless a file by the whole name exists.
    public init(_ argument: String, fileExists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) {
        path = argument
        imageIndex = nil
        guard let at = argument.lastIndex(of: "@") else { return }
        let digits = argument[argument.index(after: at)...]
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
              let index = Int(digits), !fileExists(argument) else { return }
        path = String(argument[..<at])
        imageIndex = index
    }

    /// The image number of each argument: its `@N`, else the next of `explicitIndices` (one
    /// `--image-index` per file without `@N`), else its position.
    public static func imageIndices(of arguments: [ImageFileArgument], explicitIndices: [Int]) -> [Int] {
        var explicit = explicitIndices.makeIterator()
        return arguments.enumerated().map { position, argument in argument.imageIndex ?? explicit.next() ?? position }
    }

    /// Loads and verifies each file (`InputFile.mcubootImage(_:)`) as the image its number names.
    public static func upgradeImages(_ arguments: [ImageFileArgument], explicitIndices: [Int]) throws(InputFileError) -> [FirmwareUpgradeImage] {
        var images: [FirmwareUpgradeImage] = []
        for (argument, index) in zip(arguments, imageIndices(of: arguments, explicitIndices: explicitIndices)) {
            images.append(FirmwareUpgradeImage(index: index, image: try InputFile.mcubootImage(argument.path)))
        }
        return images
    }
}
