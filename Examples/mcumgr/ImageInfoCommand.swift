import ArgumentParser
import McuBoot
import McuMgr
import McuMgrConnection
import McuMgrTools

extension MCUmgr.Image {
    /// `mcumgr image info FILE… [--json] [--key FILE…]`: what is in MCUboot image files, no device needed.
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info", abstract: "Show what is in MCUboot image files, DFU packages and SUIT envelopes (no device needed).",
            discussion: """
                For each FILE: the header (version, sizes, load address, flags), the TLV areas, the hash and whether \
                it verifies, the signature type and key hash, the security counter, dependencies, and the padding \
                and slot trailer, as 'imgtool dumpinfo' shows them. A DFU package (zip) shows each of its images with \
                its image number; a SUIT envelope (.suit, or in a package) its sequence number, digest, signature, \
                components and the files it fetches. With --key, the signature is verified too. \
                A file that is not a valid image, or whose hash or signature does not verify, is reported on \
                standard error and the exit status is 4.
                """)

        @Argument(help: ArgumentHelp("MCUboot image files, DFU packages (.zip) or SUIT envelopes (.suit).", valueName: "file"))
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
            struct Envelope: Encodable {
                let file: String, sequence_number: UInt64, digest: String, digest_algorithm: String, digest_verifies: Bool
                let signatures: [String], components: [String], fetches: [String], signature_verified: Bool?
            }
            let ok: Bool
            let images: [Entry]
            let envelopes: [Envelope]
            let errors: [Problem]
        }

        func run() throws {
            let keys = try signature.keys()
            var entries: [Answer.Entry] = []
            var problems: [Answer.Problem] = []
            var envelopes: [(file: String, envelope: SUITEnvelope, verified: Bool?)] = []
            var images: [(file: String, image: McuBootImage?)] = []
            for file in files {
                guard PackageFile.isPackage(file) else {
                    images.append((file, nil))
                    continue
                }
                do {
                    let package = try PackageFile.read(file)
                    for entry in package.images {
                        let slot = entry.slot.map { ", slot \($0)" } ?? ""
                        images.append(("\(file):\(entry.file) (image \(entry.index)\(slot))", entry.image))
                    }
                    if let envelope = package.envelope {
                        var verified: Bool?
                        if !keys.isEmpty {
                            do {
                                try envelope.envelope.verifySignature(keys: keys)
                                verified = true
                            } catch {
                                verified = false
                                problems.append(.init(file: file, error: "signature check failed: \(error)"))
                            }
                        }
                        let name = package.manifest == nil ? file : "\(file):\(envelope.file)"
                        envelopes.append((name, envelope.envelope, verified))
                    }
                } catch {
                    problems.append(.init(file: file, error: CommandFailure(error).message))
                }
            }
            for (file, parsed) in images {
                let image: McuBootImage
                if let parsed {
                    image = parsed
                } else {
                do {
                    image = try McuBootImage(bytes: try InputFile.read(file))
                } catch let error as InputFileError {
                    problems.append(.init(file: file, error: error.description))
                    continue
                } catch {
                    problems.append(.init(file: file, error: "not a valid MCUboot image: \(error)"))
                    continue
                }
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
            let envelopeEntries = envelopes.map { file, envelope, verified in
                Answer.Envelope(
                    file: file, sequence_number: envelope.sequenceNumber, digest: envelope.digest.bytes.hexString,
                    digest_algorithm: envelope.digest.algorithmName, digest_verifies: envelope.digestMatches,
                    signatures: envelope.signatures.map(\.algorithmName), components: envelope.components.map(SUITEnvelopeText.componentText),
                    fetches: envelope.resources.map(\.uri), signature_verified: verified)
            }
            try global.output.emit(Answer(ok: problems.isEmpty, images: entries, envelopes: envelopeEntries, errors: problems)) {
                (entries.map { ImageInfoText.text(file: $0.file, info: $0.info, signatureVerified: $0.signature_verified) }
                    + envelopes.map { SUITEnvelopeText.text(file: $0.file, envelope: $0.envelope, signatureVerified: $0.verified) })
                    .joined(separator: "\n\n")
            }
            guard let last = problems.last else { return }
            for problem in problems.dropLast() { Console.err("mcumgr: error: \(problem.file): \(problem.error)") }
            throw CommandFailure(.input, "\(last.file): \(last.error)")
        }
    }
}
