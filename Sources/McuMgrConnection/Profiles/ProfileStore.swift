#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc
import McuMgr

/// The connection profiles file, `connections.json`: in `$MCUMGR_CONFIG_DIR`, else in
/// `$XDG_CONFIG_HOME/mcumgr`, else in `~/.config/mcumgr`. Its format is ``ConnectionProfiles``
/// (documented in the ConnectionProfiles article).
public struct ProfileStore: Sendable {
    /// The file's path.
    public let path: String

    /// The store the environment names.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let directory: String
        if let dir = environment["MCUMGR_CONFIG_DIR"], !dir.isEmpty {
            directory = dir
        } else if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty {
            directory = xdg + "/mcumgr"
        } else {
            directory = (environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.config/mcumgr"
        }
        path = directory + "/connections.json"
    }

    /// The store in the file at `path`.
    public init(path: String) {
        self.path = path
    }

    /// The largest profiles file read: 4 MiB, tens of thousands of profiles.
    public static let maximumFileSize = 4 << 20

    /// The saved profiles (none when the file does not exist). The file is read as every text
    /// file is (`InputFile.readText(_:maximumSize:)`: a byte order mark and CRLF line ends are
    /// taken); a file of a newer format version than this library's is refused.
    public func load() throws(ProfileStoreError) -> ConnectionProfiles {
        let text: String
        do {
            text = try InputFile.readText(path, maximumSize: Self.maximumFileSize)
        } catch .missing {
            return ConnectionProfiles()
        } catch .directory {
            throw .unreadable(path: path, reason: String(cString: strerror(EISDIR)))
        } catch {
            throw .unreadable(path: path, reason: error.description)
        }
        let profiles: ConnectionProfiles
        do {
            profiles = try JSONDecoder().decode(ConnectionProfiles.self, from: Data(text.utf8))
        } catch {
            throw .unreadable(path: path, reason: ProfileDecodingReason.text(error))
        }
        guard profiles.version <= ConnectionProfiles.currentVersion else { throw .newerVersion(path: path, version: profiles.version) }
        guard profiles.version >= 1 else {
            throw .unreadable(path: path, reason: "\"version\" is \(profiles.version); the first format version is 1")
        }
        return profiles
    }

    /// Replaces the file with `profiles` (written atomically, keys sorted); a file of a newer
    /// version than this library's is never overwritten.
    public func save(_ profiles: ConnectionProfiles) throws(ProfileStoreError) {
        guard profiles.version <= ConnectionProfiles.currentVersion else {
            throw .newerVersion(path: path, version: profiles.version)
        }
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data((try JSONOutput.encode(profiles) + "\n").utf8).write(to: url, options: .atomic)
        } catch {
            throw .unwritable(path: path, reason: FileErrorReason.text(error))
        }
    }

    /// The profile called `name`.
    public func profile(named name: String) throws(ProfileStoreError) -> ConnectionProfile {
        guard let profile = try load().connections[name] else { throw .notFound(name: name, path: path) }
        return profile
    }

    /// Loads the file, lets `change` edit the profiles, and saves them; returns what `change` returns.
    @discardableResult
    public func update<T>(_ change: (inout ConnectionProfiles) throws(ProfileStoreError) -> T) throws(ProfileStoreError) -> T {
        var profiles = try load()
        let result = try change(&profiles)
        try save(profiles)
        return result
    }
}

/// Why the profiles file could not be used. `mcumgr` reports a missing profile as a usage error
/// (exit status 2) and the rest as input-file errors (4).
public enum ProfileStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file exists but is not a profiles file.
    case unreadable(path: String, reason: String)
    /// The file could not be written.
    case unwritable(path: String, reason: String)
    /// The file is of a newer format than this library reads and writes: it is neither used nor
    /// overwritten (a newer format may mean something else by the same keys).
    case newerVersion(path: String, version: Int)
    /// No profile has that name (in the file at `path`, when the message should say where).
    case notFound(name: String, path: String?)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "cannot read the connection profiles in \(path): \(reason); fix or delete the file"
        case .unwritable(let path, let reason):
            return "cannot write the connection profiles to \(path): \(reason)"
        case .newerVersion(let path, let version):
            return "the connection profiles in \(path) are format version \(version), newer than this mcumgr reads and writes (\(ConnectionProfiles.currentVersion)); update mcumgr to use them"
        case .notFound(let name, let path):
            return "no connection profile named '\(name)'\(path.map { " in \($0)" } ?? ""); list them with 'mcumgr conn show'"
        }
    }
}
