import Foundation
import SMPTestSupport
import SMPTestTraits
import Testing

/// Independent peers over a pseudo-terminal against `mcumgr-sim --serial`: smpmgr (smpclient's
/// serial transport, via pyserial), mcumgr-toolkit (Rust, serialport) and mcumgr-client-wrapper
/// (Rust `mcumgr-client`). Each test has its own simulator and pty, so they run in parallel.
@Suite("Serial peers against mcumgr-sim --serial", .scaledTimeLimit(minutes: 10))
struct SerialInteropTests {
    @Test("smpmgr --port: echo (sent as a write) and the image state of the running images")
    func smpmgrEchoAndState() async throws {
        let sim = try await SimulatorProcess.launchSerial()
        let echo = try await sim.smpmgr("os", "echo", "hello over the pty")
        #expect(echo.status == 0, "\(echo.stderr)")
        #expect(echo.stdout.contains("r='hello over the pty'"), "\(echo.stdout)")
        let state = try await sim.smpmgr("image", "state-read")
        let states = SmpmgrOutput.imageStates(state.stdout)
        #expect(states.count == 2, "\(state.stdout)")
        #expect(states.allSatisfy { $0.slot == 0 && $0.version == "1.0.0" && $0.active && $0.confirmed && !$0.pending })
        #expect(Set(states.map(\.image)) == [0, 1])
        #expect(sim.log.contains("write group=0 cmd=0"))
        #expect(await sim.stop() == 0)
    }

    @Test("smpmgr --port: echo through a console shared with Zephyr-style log lines")
    func smpmgrWithConsoleNoise() async throws {
        let sim = try await SimulatorProcess.launchSerial(arguments: ["--console-noise"])
        for word in ["first", "second", "third"] {
            let echo = try await sim.smpmgr("os", "echo", word)
            #expect(echo.stdout.contains("r='\(word)'"), "\(echo.stdout)\(echo.stderr)")
        }
        #expect(await sim.stop() == 0)
    }

    @Test("smpmgr --port: upload an imgtool image (≥ 200 KiB) to slot 1; its hash and version match")
    func smpmgrUpload() async throws {
        let image = try await TestImage.make(version: "1.4.0+2", seed: 21)
        #expect(image.bytes.count >= 200 * 1024)
        let sim = try await SimulatorProcess.launchSerial()
        // Eight 128-byte line buffers: packets of about 700 bytes, each spread over several frames.
        let upload = try await sim.smpmgr("--line-buffers", "8", "image", "upload", image.path)
        #expect(upload.status == 0, "\(upload.stdout)\(upload.stderr)")
        let states = SmpmgrOutput.imageStates(try await sim.smpmgr("image", "state-read").stdout)
        let uploaded = states.first { $0.image == 0 && $0.slot == 1 }
        #expect(uploaded?.hash == image.hashHex)
        #expect(uploaded?.version == "1.4.0.2")
        #expect(uploaded.map { !$0.pending && !$0.confirmed && !$0.active } == true)
        #expect(await sim.stop() == 0)
    }

    @Test("mcumgr-toolkit MCUmgrClient.serial: echo (sent as a read), MCUmgr parameters, image state")
    func toolkitConsole() async throws {
        let sim = try await SimulatorProcess.launchSerial(arguments: ["--buf-size", "1024", "--buf-count", "3"])
        let run = try await sim.python(SerialPeerScripts.toolkitBasics)
        #expect(run.status == 0, "\(run.stderr)")
        let out = try run.json()
        #expect(out["echo"] as? String == "hello over serial from the toolkit")
        #expect(out["params"] as? [Int] == [1024, 3])
        let images = out["images"] as? [[String: Any]] ?? []
        #expect(images.count == 2)
        #expect(images.allSatisfy { $0["slot"] as? Int == 0 && $0["version"] as? String == "1.0.0" && $0["active"] as? Bool == true })
        #expect(sim.log.contains("read group=0 cmd=0"), "the toolkit sends echo as a read")
        #expect(await sim.stop() == 0)
    }

    @Test("mcumgr-toolkit MCUmgrClient.raw_serial against mcumgr-sim --serial --raw: echo and parameters")
    func toolkitRaw() async throws {
        let sim = try await SimulatorProcess.launchSerial(arguments: ["--raw"])
        let run = try await sim.python(SerialPeerScripts.toolkitBasics, "raw")
        #expect(run.status == 0, "\(run.stderr)")
        let out = try run.json()
        #expect(out["echo"] as? String == "hello over serial from the toolkit")
        #expect(out["params"] as? [Int] == [2048, 4])
        #expect(await sim.stop() == 0)
    }

    @Test("mcumgr-client-wrapper SerialSession: image list, upload of an imgtool image, list again")
    func mcumgrClientUpload() async throws {
        let image = try await TestImage.make(version: "3.2.1", seed: 22)
        let sim = try await SimulatorProcess.launchSerial()
        let run = try await sim.python(SerialPeerScripts.mcumgrClientUpload, image.path)
        #expect(run.status == 0, "\(run.stderr)")
        let out = try run.json()
        let before = out["before"] as? [[String: Any]] ?? []
        #expect(before.count == 2)
        #expect(before.allSatisfy { $0["slot"] as? Int == 0 && $0["version"] as? String == "1.0.0" && $0["confirmed"] as? Bool == true })
        #expect((out["progress_last"] as? [Int])?.last == image.bytes.count)
        let after = out["after"] as? [[String: Any]] ?? []
        let uploaded = after.first { $0["image"] as? Int == 0 && $0["slot"] as? Int == 1 }
        #expect(uploaded?["hash"] as? String == image.hashHex)
        #expect(uploaded?["version"] as? String == "3.2.1")
        #expect(await sim.stop() == 0)
    }
}
