import McuBoot
import McuMgr

/// Public keys from key files, and the signature check that runs before an image is sent.
public enum SignatureKeyFiles {
    /// The largest key file read: 64 KiB, twenty times an RSA-3072 private key in PEM.
    public static let maximumSize = 64 << 10

    /// Reads each key file (PEM or DER, public or private; ECDSA P-256, Ed25519, RSA-2048/3072);
    /// an unreadable, unusable or oversized file fails with status 4, naming it.
    public static func read(_ paths: [String]) throws -> [McuBootPublicKey] {
        try paths.map { path in
            let bytes = try InputFile.read(path, maximumSize: maximumSize)
            do {
                return try McuBootPublicKey(keyFile: bytes)
            } catch {
                throw CommandFailure(.input, "\(path): \(error)")
            }
        }
    }

    /// Checks that `image` (read from `path`) is signed by one of `keys`; fails with status 4 and
    /// the key hash the image names otherwise. Does nothing without keys.
    public static func verify(_ image: McuBootImage, path: String, keys: [McuBootPublicKey]) throws {
        guard !keys.isEmpty else { return }
        do {
            try image.verifySignature(keys: keys)
        } catch {
            throw CommandFailure(.input, "\(path): signature check failed, nothing was sent: \(error)")
        }
    }

    /// Checks a SUIT envelope's signature against `keys`; throws an input failure naming `path`.
    public static func verify(_ envelope: SUITEnvelope, path: String, keys: [McuBootPublicKey]) throws {
        guard !keys.isEmpty else { return }
        do {
            try envelope.verifySignature(keys: keys)
        } catch {
            throw CommandFailure(.input, "\(path): signature check failed, nothing was sent: \(error)")
        }
    }
}
