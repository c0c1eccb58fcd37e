/// The in-memory file system behind the FS group: regular files under one mount point,
/// directories implied by the paths of their files.
struct FileTree: Sendable {
    /// The mount point, e.g. `/lfs1`.
    let mountPoint: String
    /// Bytes the file system holds.
    let capacity: Int
    /// Files by absolute path.
    private(set) var files: [String: [UInt8]] = [:]

    init(mountPoint: String, capacity: Int) {
        self.mountPoint = mountPoint
        self.capacity = capacity
    }

    /// What is at a path.
    enum Entry: Equatable {
        case file(Int)
        case directory
        case none
    }

    /// Whether a valid path lies on the mounted file system.
    func isMounted(_ path: String) -> Bool {
        path == mountPoint || path.hasPrefix(mountPoint + "/")
    }

    /// The entry at `path` (which `validate` accepted).
    func entry(at path: String) -> Entry {
        if let data = files[path] { return .file(data.count) }
        if path == mountPoint { return .directory }
        let prefix = path + "/"
        if files.keys.contains(where: { $0.hasPrefix(prefix) }) { return .directory }
        return .none
    }

    func contents(of path: String) -> [UInt8]? { files[path] }

    /// Bytes in use.
    var used: Int { files.values.reduce(0) { $0 + $1.count } }

    /// Creates or truncates a file.
    mutating func create(_ path: String) {
        files[path] = []
    }

    /// Appends to a file; false when the file system is full.
    mutating func append(_ data: [UInt8], to path: String) -> Bool {
        guard used + data.count <= capacity else { return false }
        files[path, default: []].append(contentsOf: data)
        return true
    }

    /// Removes a file; false when there is none.
    mutating func remove(_ path: String) -> Bool {
        files.removeValue(forKey: path) != nil
    }

    /// Names directly inside a directory, directories with a trailing `/`.
    func list(_ directory: String) -> [String] {
        let prefix = directory == "/" ? "/" : directory + "/"
        var names = Set<String>()
        for path in files.keys where path.hasPrefix(prefix) {
            let rest = path.dropFirst(prefix.count)
            if let slash = rest.firstIndex(of: "/") {
                names.insert(String(rest[..<slash]) + "/")
            } else {
                names.insert(String(rest))
            }
        }
        return names.sorted()
    }

    /// Erases everything (the storage partition was erased).
    mutating func format() {
        files = [:]
    }

    /// Checks a path as the file-system API would: absolute, no `.` or `..` parts, no NUL, no empty parts.
    static func isValidName(_ path: String) -> Bool {
        guard path.hasPrefix("/"), !path.utf8.contains(0) else { return false }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if path == "/" { return true }
        return parts.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }
}
