import ArgumentParser
import McuBoot
import McuMgr
import McuMgrConnection
import McuMgrTools

extension MCUmgr.Image {
    /// `mcumgr image info FILE… [--json] [--key FILE…]`: what is in MCUboot image files, no device needed.
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info", abstract: "Show what is in MCUboot image files (no device needed).",
            discussion: """
                For each FILE: the header (version, sizes, load address, flags), the TLV areas, the hash and whether \
                it verifies, the signature type and key hash, the security counter, dependencies, and the padding \
                and slot trailer, as 'imgtool dumpinfo' shows them. With --key, the signature is verified too. \
                A file that is not a valid image, or whose hash or signature does not verify, is reported on \
                standard error and the exit status is 4.
                """)

        @Argument(help: ArgumentHelp("MCUboot image files.", valueName: "file"))
        var files: [String]

        @OptionGroup var signature: SignatureKeyOptions

        @OptionGroup var global: GlobalOptions

        /// The JSON answer: one entry per readable image, and the failures.
        private struct Answer: Encodable {
            struct Entry: Encodable {
                let file: String
                let info: McuBootImageInfo
                let signature_verified: Bool?

                func encode(to encoder: any Encoder) throws {
                    try info.encode(to: encoder)
                    var c = encoder.container(keyedBy: AnyCodingKey.self)
                    try c.encode(file, forKey: AnyCodingKey("file"))
                    try c.encode(signature_verified, forKey: AnyCodingKey("signature_verified"))
                }
            }
            struct Problem: Encodable { let file: String, error: String }
            let ok: Bool
            let images: [Entry]
            let errors: [Problem]
        }

        func run() throws {
            let keys = try signature.keys()
            var entries: [Answer.Entry] = []
            var problems: [Answer.Problem] = []
            for file in files {
                let image: McuBootImage
                do {
                    image = try McuBootImage(bytes: try InputFile.read(file))
                } catch let error as InputFileError {
                    problems.append(.init(file: file, error: error.description))
                    continue
                } catch {
                    problems.append(.init(file: file, error: "not a valid MCUboot image: \(error)"))
                    continue
                }
                let info = McuBootImageInfo(image: image)
                var verified: Bool?
                if !info.hashVerifies {
                    problems.append(.init(file: file, error: "\(McuBootError.hashMismatch(expected: info.hash, actual: info.computedHash))"))
                } else if !keys.isEmpty {
                    do {
                        try image.verifySignature(keys: keys)
                        verified = true
                    } catch {
                        verified = false
                        problems.append(.init(file: file, error: "signature check failed: \(error)"))
                    }
                }
                entries.append(.init(file: file, info: info, signature_verified: verified))
            }
            try global.output.emit(Answer(ok: problems.isEmpty, images: entries, errors: problems)) {
                entries.map { ImageInfoText.text(file: $0.file, info: $0.info, signatureVerified: $0.signature_verified) }
                    .joined(separator: "\n\n")
            }
            guard let last = problems.last else { return }
            for problem in problems.dropLast() { Console.err("mcumgr: error: \(problem.file): \(problem.error)") }
            throw CommandFailure(.input, "\(last.file): \(last.error)")
        }
    }
}
