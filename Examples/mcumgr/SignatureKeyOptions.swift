import ArgumentParser
import McuBoot
import McuMgr

/// `--key FILE` (repeatable) of `image upload`, `upgrade` and `image info`: public keys an image's
/// signature must verify with before anything is sent.
struct SignatureKeyOptions: ParsableArguments {
    @Option(name: .customLong("key"), help: ArgumentHelp(
        "Verify the image's signature with this key before sending (PEM or DER, public or private; ECDSA P-256, "
            + "Ed25519, RSA-2048/3072). Repeat for several keys; any may match.", valueName: "file"))
    var keyFiles: [String] = []

    /// The keys, read from their files; an unreadable or unusable key file fails with status 4.
    func keys() throws -> [McuBootPublicKey] {
        try keyFiles.map { path in
            let bytes = try InputFile.read(path)
            do {
                return try McuBootPublicKey(keyFile: bytes)
            } catch {
                throw Failure(.input, "\(path): \(error)")
            }
        }
    }

    /// Checks that `image` (read from `path`) is signed by one of `keys`; fails with status 4 and
    /// the key hash the image names otherwise. Does nothing without keys.
    static func verify(_ image: McuBootImage, path: String, keys: [McuBootPublicKey]) throws {
        guard !keys.isEmpty else { return }
        do {
            try image.verifySignature(keys: keys)
        } catch {
            throw Failure(.input, "\(path): signature check failed, nothing was sent: \(error)")
        }
    }
}
