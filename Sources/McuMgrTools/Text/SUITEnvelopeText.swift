import Hex
import McuBoot
import McuMgr

/// A SUIT envelope as text for people: what `mcumgr image info x.suit` shows.
public enum SUITEnvelopeText {
    /// The envelope of `file` in lines; `signatureVerified` is the result of a `--key` check, if any.
    public static func text(file: String, envelope: SUITEnvelope, signatureVerified: Bool?) -> String {
        var lines = [file]
        func field(_ name: String, _ value: String) {
            lines.append("  " + TextFormat.left(name + ":", 20) + value)
        }
        field("kind", "SUIT envelope, manifest version \(envelope.manifestVersion)")
        field("sequence number", "\(envelope.sequenceNumber)")
        field("digest", "\(envelope.digest.algorithmName) \(envelope.digest.bytes.hexString), "
            + (envelope.digestMatches ? "verifies" : "DOES NOT VERIFY against the manifest"))
        if envelope.signatures.isEmpty {
            field("signature", "none (unsigned)")
        } else {
            let check = signatureVerified.map { $0 ? ", verified with the key given" : ", DOES NOT VERIFY with the keys given" } ?? ""
            field("signature", envelope.signatures.map { $0.algorithmName + ($0.keyID.map { " (key id \($0.hexString))" } ?? "") }
                .joined(separator: ", ") + check)
        }
        if let id = envelope.manifestComponentID { field("manifest component", componentText(id)) }
        field("components", envelope.components.isEmpty ? "none" : envelope.components.map(componentText).joined(separator: "; "))
        field("fetches", envelope.resources.isEmpty ? "nothing" : envelope.resources.map { resource in
            resource.uri + (resource.size.map { " (\($0) bytes)" } ?? "")
        }.joined(separator: ", "))
        if !envelope.integratedPayloads.isEmpty {
            field("payloads", envelope.integratedPayloads.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value.count) bytes)" }.joined(separator: ", "))
        }
        field("file size", "\(envelope.bytes.count) bytes")
        return lines.joined(separator: "\n")
    }

    /// A component identifier: printable parts as text in quotes, others in hex.
    public static func componentText(_ parts: [[UInt8]]) -> String {
        "[" + parts.map { part in
            part.allSatisfy({ (0x20..<0x7f).contains($0) }) && !part.isEmpty ? "'\(String(decoding: part, as: UTF8.self))'" : part.hexString
        }.joined(separator: ", ") + "]"
    }
}
