/// The in-memory file system behind the FS group: regular files under one mount point,
/// directories implied by the paths of their files.
///
/// Bounded like a device's flash file system: at most `maximumFiles` files and `capacity` bytes
/// of contents (creating or growing past either fails, as littlefs does with `-ENOSPC`). No
/// request scans the whole tree: files are found by path, directories by an index of each
/// directory's children, and the bytes in use are counted as they change.
struct FileTree: Sendable {
    /// The mount point, e.g. `/lfs1`.
    let mountPoint: String
    /// Bytes the file system holds.
    let capacity: Int
    /// Files the file system holds.
    let maximumFiles: Int
    /// Files by absolute path.
    private(set) var files: [String: [UInt8]] = [:]
    /// Bytes of file contents in use.
    private(set) var used = 0
    /// For each directory that holds files, its children (files by name, directories by name and a
    /// trailing `/`) and how many files lie at or under each.
    private var children: [String: [String: Int]] = [:]

    init(mountPoint: String, capacity: Int, maximumFiles: Int = .max) {
        self.mountPoint = mountPoint
        self.capacity = capacity
        self.maximumFiles = maximumFiles
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
        if path == mountPoint || children[path] != nil { return .directory }
        return .none
    }

    func contents(of path: String) -> [UInt8]? { files[path] }

    /// Creates an empty file, or empties an existing one; false when a new file would pass `maximumFiles`.
    mutating func create(_ path: String) -> Bool {
        if let old = files[path] {
            used -= old.count
            files[path] = []
            return true
        }
        guard files.count < maximumFiles else { return false }
        files[path] = []
        for (directory, child) in Self.ancestry(of: path) {
            children[directory, default: [:]][child, default: 0] += 1
        }
        return true
    }

    /// Appends to a file; false when the file system is full.
    mutating func append(_ data: [UInt8], to path: String) -> Bool {
        guard files[path] != nil, used + data.count <= capacity else { return false }
        files[path]!.append(contentsOf: data)
        used += data.count
        return true
    }

    /// Removes a file; false when there is none.
    mutating func remove(_ path: String) -> Bool {
        guard let old = files.removeValue(forKey: path) else { return false }
        used -= old.count
        for (directory, child) in Self.ancestry(of: path) {
            let count = (children[directory]?[child] ?? 1) - 1
            children[directory]?[child] = count > 0 ? count : nil
            if children[directory]?.isEmpty == true { children[directory] = nil }
        }
        return true
    }

    /// Names directly inside a directory, directories with a trailing `/`.
    func list(_ directory: String) -> [String] {
        let key = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        return (children[key]?.keys).map { $0.sorted() } ?? []
    }

    /// Erases everything (the storage partition was erased).
    mutating func format() {
        files = [:]
        children = [:]
        used = 0
    }

    /// Each directory above `path` with the name by which `path`'s branch appears in it: for
    /// `/lfs1/logs/a.txt`, `("/", "lfs1/")`, `("/lfs1", "logs/")`, `("/lfs1/logs", "a.txt")`.
    static func ancestry(of path: String) -> [(directory: String, child: String)] {
        let parts = path.split(separator: "/")
        var result: [(directory: String, child: String)] = []
        var directory = "/"
        for (index, part) in parts.enumerated() {
            let isLast = index == parts.count - 1
            result.append((directory, isLast ? String(part) : part + "/"))
            directory = directory == "/" ? "/" + part : directory + "/" + part
        }
        return result
    }

    /// Checks a path as the file-system API would: absolute, no `.` or `..` parts, no NUL, no empty parts.
    static func isValidName(_ path: String) -> Bool {
        guard path.hasPrefix("/"), !path.utf8.contains(0) else { return false }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if path == "/" { return true }
        return parts.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }
}
