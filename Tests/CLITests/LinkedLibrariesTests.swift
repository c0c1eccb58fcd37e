import Foundation
import SMP
import SMPTestSupport
import Testing

import Glibc

/// A UDP-only user needs no Bluetooth library: `libbluetooth.so.3` is opened at run time.
@Suite("The libraries the programs need to start (issue 32)")
struct LinkedLibrariesTests {
    @Test("mcumgr and mcumgr-sim need no libbluetooth.so.3 to start (it is opened when Bluetooth through the kernel is used)")
    func noLibbluetoothDependency() async throws {
        for program in ["mcumgr", "mcumgr-sim"] {
            let needed = try await CLI.run("/usr/bin/ldd", [try BuiltProducts.require(program)])
            #expect(needed.status == 0, "\(needed)")
            #expect(!needed.stdout.contains("libbluetooth"), "\(program) links libbluetooth:\n\(needed.stdout)")
            #expect(needed.stdout.contains("libcbor"), "ldd printed no libraries for \(program):\n\(needed.stdout)")
        }
    }
}
