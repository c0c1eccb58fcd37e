import Foundation
import SMPTestSupport

/// The peers' paths in the project venv.
enum Interop {
    static var python: String { BuiltProducts.venvTool("python") }
    static var smpmgr: String { BuiltProducts.venvTool("smpmgr") }
    static var imgtool: String { BuiltProducts.venvTool("imgtool") }

    /// A fresh temporary directory.
    static func temporaryDirectory(_ name: String) throws -> URL {
        try Subprocess.temporaryDirectory("interop-\(name)")
    }
}

/// A failed precondition of an interop test, with a message a person can act on.
struct InteropError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
