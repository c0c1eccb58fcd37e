/// Reads what the smpmgr CLI prints (rich pretty-printed pydantic models).
enum SmpmgrOutput {
    /// One `ImageState(...)` block of `image state-read`.
    struct ImageState: Equatable, CustomStringConvertible {
        var image: Int
        var slot: Int
        var version: String
        /// Lower-case hex.
        var hash: String
        var pending: Bool
        var confirmed: Bool
        var active: Bool
        var permanent: Bool

        var description: String {
            "image \(image) slot \(slot) \(version) \(hash.prefix(8)) p=\(pending) c=\(confirmed) a=\(active) perm=\(permanent)"
        }
    }

    /// The image states printed by `smpmgr image state-read`.
    static func imageStates(_ text: String) -> [ImageState] {
        text.components(separatedBy: "ImageState(").dropFirst().compactMap { block in
            guard let slot = int(block, "slot"), let version = quoted(block, "version") else { return nil }
            let hash = firstMatch(block, #"'([0-9A-Fa-f]{64})'"#)?.lowercased() ?? ""
            return ImageState(
                image: int(block, "image") ?? 0, slot: slot, version: version, hash: hash,
                pending: bool(block, "pending"), confirmed: bool(block, "confirmed"), active: bool(block, "active"),
                permanent: bool(block, "permanent"))
        }
    }

    /// `name=123` in a block.
    static func int(_ text: String, _ name: String) -> Int? {
        firstMatch(text, "\(name)=(\\d+)").flatMap { Int($0) }
    }

    /// `name='text'` in a block.
    static func quoted(_ text: String, _ name: String) -> String? {
        firstMatch(text, "\(name)='([^']*)'")
    }

    /// `name=True`.
    static func bool(_ text: String, _ name: String) -> Bool {
        firstMatch(text, "\(name)=(True|False|None)") == "True"
    }

    /// The first capture of `pattern` in `text`.
    static func firstMatch(_ text: String, _ pattern: String) -> String? {
        guard let regex = try? Regex<(Substring, Substring)>(pattern), let match = text.firstMatch(of: regex) else { return nil }
        return String(match.output.1)
    }
}
