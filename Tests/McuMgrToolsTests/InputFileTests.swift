import Foundation
import Hex
import McuBoot
import McuMgr
import McuMgrTools
import SMPTestSupport
import Testing

import Glibc

/// Image files for upload: every way a file can be wrong is its own typed error, mapped to exit status 4.
@Suite("Input files")
struct InputFileTests {
    /// The bundled demo image, made by MCUboot's imgtool (Examples/images/make-demo-image.sh).
    static let demoImage = BuiltProducts.packageRoot.appendingPathComponent("Examples/images/demo-app-1.1.0.bin").path
    /// Its hash as `imgtool verify` prints it (Examples/images/README.md).
    static let demoHash = "654723ae6bf57604d87c82d639cfcd3510b15547607689e1cc7075cc7981f48e"

    @Test("an imgtool image loads with its version and hash")
    func validImage() throws {
        let image = try InputFile.mcubootImage(Self.demoImage)
        #expect(image.hash.hexString == Self.demoHash)
        #expect(image.version.description.hasPrefix("1.1.0"))
    }

    @Test("missing, directory, empty, unreadable, not an image, hash mismatch")
    func errors() throws {
        let dir = try Subprocess.temporaryDirectory("input")
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("missing.bin").path
        let empty = dir.appendingPathComponent("empty.bin").path
        let junk = dir.appendingPathComponent("junk.bin").path
        let tampered = dir.appendingPathComponent("tampered.bin").path
        let socket = dir.appendingPathComponent("s.sock").path
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        _ = FileManager.default.createFile(atPath: junk, contents: Data(String(repeating: "hello world, not an image", count: 10).utf8))
        var bytes = try InputFile.read(Self.demoImage)
        bytes[0x200 + 100] ^= 0xff
        _ = FileManager.default.createFile(atPath: tampered, contents: Data(bytes))
        try bindUnixSocket(at: socket)

        #expect(throws: InputFileError.missing(missing)) { try InputFile.mcubootImage(missing) }
        #expect(throws: InputFileError.directory(dir.path)) { try InputFile.mcubootImage(dir.path) }
        #expect(throws: InputFileError.notAFile(socket, kind: "socket")) { try InputFile.read(socket) }
        #expect(throws: InputFileError.empty(empty)) { try InputFile.readNonEmpty(empty) }
        #expect(throws: InputFileError.empty(empty)) { try InputFile.mcubootImage(empty) }
        #expect(throws: InputFileError.notAnImage(junk, .badMagic(found: 0x6c6c_6568))) { try InputFile.mcubootImage(junk) }
        let mismatch = try #require(throws: InputFileError.self) { try InputFile.mcubootImage(tampered) }
        guard case .hashMismatch(tampered, let expected, let actual) = mismatch else { Issue.record("\(mismatch)"); return }
        #expect(expected.hexString == Self.demoHash)
        #expect(actual != expected)

        // The messages are the command line's, word for word.
        #expect(InputFileError.missing(missing).description == "no such file: \(missing); check the path")
        #expect(InputFileError.directory(dir.path).description == "\(dir.path) is a directory, not a file")
        #expect(InputFileError.unreadable(socket).description == "cannot read \(socket); check its permissions")
        #expect(InputFileError.notAFile(socket, kind: "socket").description
            == "\(socket) is a socket, not a regular file; save its contents to a file and give that")
        #expect(InputFileError.empty(empty).description == "\(empty) is empty; there is nothing to upload")
        #expect(mismatch.description == "\(tampered) is not a valid MCUboot image: MCUboot image hash mismatch: the image says \(Self.demoHash) "
            + "but its contents hash to \(actual.hexString). The file was altered or corrupted after signing; build and sign it again.; "
            + "build it with MCUboot signing (e.g. imgtool sign)")
        for error in [InputFileError.missing(missing), .directory(dir.path), .unreadable(socket), .empty(empty), mismatch,
                      .notAnImage(junk, .badMagic(found: 0)), .notAFile(socket, kind: "socket"), .notText(junk)] {
            #expect(CommandFailure(error) == CommandFailure(.input, error.description))
        }
    }

    @Test("a named pipe with no writer is refused at once, not waited on; /dev/null reads as empty")
    func namedPipe() throws {
        let dir = try Subprocess.temporaryDirectory("input")
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: InputFileError.notAFile(fifo, kind: "named pipe (FIFO)")) { try InputFile.read(fifo) }
        #expect(throws: InputFileError.notAFile(fifo, kind: "named pipe (FIFO)")) { try InputFile.readText(fifo, maximumSize: 100) }
        #expect(try InputFile.read("/dev/null") == [])
        #expect(throws: InputFileError.tooLarge("/dev/zero", limit: 1000)) { try InputFile.read("/dev/zero", maximumSize: 1000) }
    }

    @Test("a file larger than the limit by its size is refused: a sparse 2 GB file, a 250 MB key")
    func sizeByStat() throws {
        let dir = try Subprocess.temporaryDirectory("input")
        defer { try? FileManager.default.removeItem(at: dir) }
        let big = dir.appendingPathComponent("big.bin").path
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        #expect(truncate(big, 2 << 30) == 0)
        #expect(throws: InputFileError.tooLarge(big, limit: InputFile.maximumSize)) { try InputFile.read(big) }
        #expect(throws: InputFileError.tooLarge(big, limit: SignatureKeyFiles.maximumSize)) { try SignatureKeyFiles.read([big]) }
    }

    @Test("text files: a byte order mark is dropped, line ends are kept, anything but UTF-8 is refused")
    func text() throws {
        let dir = try Subprocess.temporaryDirectory("input")
        defer { try? FileManager.default.removeItem(at: dir) }
        let bom = dir.appendingPathComponent("bom.txt").path
        let latin1 = dir.appendingPathComponent("latin1.txt").path
        _ = FileManager.default.createFile(atPath: bom, contents: Data(InputFile.byteOrderMark + Array("a\r\nb\rc\n".utf8)))
        _ = FileManager.default.createFile(atPath: latin1, contents: Data([0x63, 0x61, 0x66, 0xe9]))
        #expect(try InputFile.readText(bom, maximumSize: 100) == "a\r\nb\rc\n")
        #expect(throws: InputFileError.notText(latin1)) { try InputFile.readText(latin1, maximumSize: 100) }
        #expect(throws: InputFileError.tooLarge(bom, limit: 4)) { try InputFile.readText(bom, maximumSize: 4) }
    }

    @Test("FILE@N names an image number, unless a file by the whole name exists", arguments: [
        ("app.bin", "app.bin", nil as Int?),
        ("net.bin@1", "net.bin", 1),
        ("a@b.bin@12", "a@b.bin", 12),
        ("user@host.bin", "user@host.bin", nil),
        ("x.bin@", "x.bin@", nil),
        ("x.bin@-1", "x.bin@-1", nil),
        ("x.bin@+1", "x.bin@+1", nil),
        ("exists.bin@2", "exists.bin@2", nil),
    ])
    func imageArguments(argument: String, path: String, index: Int?) {
        let parsed = ImageFileArgument(argument) { $0 == "exists.bin@2" }
        #expect(parsed == ImageFileArgument(path: path, imageIndex: index))
    }

    @Test("image numbers: @N first, then --image-index in order, then the position")
    func imageIndices() {
        let arguments = ["a.bin", "b.bin@3", "c.bin", "d.bin"].map { ImageFileArgument($0) { _ in false } }
        #expect(ImageFileArgument.imageIndices(of: arguments, explicitIndices: []) == [0, 3, 2, 3])
        #expect(ImageFileArgument.imageIndices(of: arguments, explicitIndices: [5, 6]) == [5, 3, 6, 3])
    }

    @Test("upgrade images are loaded and verified in order")
    func upgradeImages() throws {
        let images = try ImageFileArgument.upgradeImages([ImageFileArgument(Self.demoImage + "@1")], explicitIndices: [])
        #expect(images.map(\.index) == [1])
        #expect(images.first?.image.hash.hexString == Self.demoHash)
        #expect(throws: InputFileError.missing("/nonexistent/x.bin")) {
            try ImageFileArgument.upgradeImages([ImageFileArgument(Self.demoImage), ImageFileArgument("/nonexistent/x.bin")], explicitIndices: [])
        }
    }
}

/// Binds a Unix-domain socket at `path`: a file that exists and is no directory, yet cannot be read (even by root).
private func bindUnixSocket(at path: String) throws {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    #expect(fd >= 0)
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        for (i, byte) in bytes.prefix(buffer.count - 1).enumerated() { buffer[i] = byte }
    }
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    #expect(result == 0, "bind \(path)")
}
