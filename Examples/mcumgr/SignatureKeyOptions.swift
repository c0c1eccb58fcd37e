import ArgumentParser
import McuBoot
import McuMgr
import McuMgrTools

/// `--key FILE` (repeatable) of `image upload`, `upgrade` and `image info`: public keys an image's
/// signature must verify with before anything is sent.
struct SignatureKeyOptions: ParsableArguments {
    @Option(name: .customLong("key"), help: ArgumentHelp(
        "Verify the image's signature with this key before sending (PEM or DER, public or private; ECDSA P-256, "
            + "Ed25519, RSA-2048/3072). Repeat for several keys; any may match.", valueName: "file"))
    var keyFiles: [String] = []

    /// The keys, read from their files; an unreadable or unusable key file fails with status 4.
    func keys() throws -> [McuBootPublicKey] {
        try SignatureKeyFiles.read(keyFiles)
    }
}
