import Foundation
import McuBoot
import McuMgr
import SMP
import SMPSerial
import SMPSimulator
import Testing

import Glibc

/// Our `SerialTransport` over a real pseudo-terminal against the simulator's serial server.
@Suite("Serial transport over a pty")
struct SerialTransportTests {
    @Test("echo, MCUmgr parameters and image list over console framing with console noise, and over raw framing",
          arguments: [(SerialFraming.console, true), (SerialFraming.raw, false)])
    func smoke(framing: SerialFraming, noise: Bool) async throws {
        let device = try await SerialFixture.device()
        try await SerialFixture.serving(device, options: .init(framing: framing, consoleNoise: noise, noiseSeed: 4)) { server in
            let (transport, client) = try await SerialFixture.client(path: server.path, framing: framing)
            let os = DefaultManager(client: client)
            #expect(try await os.echo("over \(framing)") == "over \(framing)")
            // 600 characters: a request of several frames and a response of several frames.
            let long = String(repeating: "serial ", count: 86)
            await transport.setDeviceBufferSize(1028)
            #expect(transport.maximumPacketSize == (framing == .console ? 1024 : 1028))
            #expect(try await os.echo(long) == long)
            #expect(try await os.parameters() == McuMgrParameters(bufferSize: 2048, bufferCount: 4))
            let slots = try await ImageManager(client: client).list()
            #expect(slots.count == 2)
            #expect(slots.allSatisfy { $0.slot == 0 && $0.version == "1.0.0" && $0.active && $0.confirmed })
            #expect(await device.requestLog.allSatisfy { $0.transport == server.transport.rawValue })
            await client.close()
            // What the line carried besides packets: the noise, passed on as text, and no damaged frame.
            var texts: [String] = []
            for await event in transport.console {
                switch event {
                case .text(let line): texts.append(line)
                case .dropped(let error): Issue.record("dropped: \(error)")
                }
            }
            if noise {
                #expect(!texts.isEmpty)
                #expect(texts.allSatisfy { $0.hasPrefix("[00:") && $0.contains("> ") })
            } else {
                #expect(texts.isEmpty)
            }
        }
    }

    @Test("many tasks sending multi-frame packets at once: every packet reaches the device whole")
    func concurrentSendsStayWhole() async throws {
        let device = try await SerialFixture.device(bufferCount: 8)
        try await SerialFixture.serving(device) { server in
            let (_, client) = try await SerialFixture.client(path: server.path, packetSize: 2044, maximumInFlight: 6)
            let os = DefaultManager(client: client)
            let results = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<24 {
                    group.addTask {
                        let text = String(repeating: Character(UnicodeScalar(UInt8(65 + index))), count: 300 + index * 50)
                        return (index, try await os.echo(text))
                    }
                }
                var results: [Int: String] = [:]
                for try await (index, echoed) in group { results[index] = echoed }
                return results
            }
            for index in 0..<24 {
                #expect(results[index] == String(repeating: Character(UnicodeScalar(UInt8(65 + index))), count: 300 + index * 50))
            }
            // Every request reached the device whole (a damaged one would be dropped and never echoed;
            // a slow answer on a loaded machine may add a resend, so at least 24).
            #expect(await device.requestLog.filter { $0.group == 0 && $0.command == 0 }.count >= 24)
            await client.close()
        }
    }

    @Test("packets larger than the packet size are refused before anything is written")
    func packetTooLarge() async throws {
        let device = try await SerialFixture.device()
        try await SerialFixture.serving(device) { server in
            let (transport, _) = try await SerialFixture.client(path: server.path)
            #expect(transport.maximumPacketSize == 256)
            #expect(transport.linkUnit == 93)
            await #expect(throws: SMPTransportError.packetTooLarge(size: 257, limit: 256)) {
                try await transport.send([UInt8](repeating: 0, count: 257))
            }
            await transport.close()
        }
    }

    @Test("the device goes away: a disconnect event; connect() fails while it is gone and reopens it when it is back")
    func unplugAndReplug() async throws {
        let device = try await SerialFixture.device()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serial-replug-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A stable name, as udev gives a USB serial device (/dev/serial/by-id/…).
        let link = directory.appendingPathComponent("ttyBOARD").path
        let first = try await SimulatorSerialServer.start(device: device)
        #expect(symlink(first.path, link) == 0)

        let transport = try SerialTransport(options: SerialConnectionOptions(path: link))
        var events = transport.events.makeAsyncIterator()
        try await transport.connect()
        #expect(await events.next() == .connected)
        let echo = Self.echoRequest(sequence: 1)
        try await transport.send(echo)
        guard case .received(let response)? = await events.next() else { Issue.record("no response"); return }
        #expect(response.prefix(8) == [0x0B, 0, 0, 9, 0, 0, 1, 0])

        await first.close()
        unlink(link)
        let event = await events.next()
        guard case .disconnected(let reason)? = event else { Issue.record("expected a disconnect, got \(String(describing: event))"); return }
        #expect(reason.contains(link))
        await #expect(throws: SMPTransportError.self) { try await transport.send(echo) }
        await #expect(throws: SMPTransportError.unreachable(SerialPortError.deviceMissing(path: link).description)) {
            try await transport.connect()
        }

        try await SerialFixture.serving(device) { second in
            #expect(symlink(second.path, link) == 0)
            try await transport.connect()
            #expect(await events.next() == .connected)
            try await transport.send(Self.echoRequest(sequence: 2))
            guard case .received(let again)? = await events.next() else { Issue.record("no response after replug"); return }
            #expect(again.prefix(8) == [0x0B, 0, 0, 9, 0, 0, 2, 0])
            await transport.close()
            #expect(await events.next() == nil)
        }
    }

    @Test("the simulator serves an existing tty given by path (here the slave of a pty whose master the test drives)")
    func servesGivenPath() async throws {
        let device = try await SerialFixture.device()
        let pty = try PseudoTerminal.open()
        let server = try await SimulatorSerialServer.start(device: device, path: pty.slavePath)
        #expect(server.path == pty.slavePath)
        let master = try SerialLine(taking: pty.master, path: "pty master")
        let encoder = try ConsoleFrameEncoder()
        try await master.write(try encoder.encode(Self.echoRequest(sequence: 7)))
        var decoder = ConsoleFrameDecoder()
        var outputs: [ConsoleFrameDecoder.Output] = []
        while !outputs.contains(where: { if case .packet = $0 { true } else { false } }) {
            outputs += decoder.append(try await master.read())
        }
        #expect(outputs == [.packet([0x0B, 0, 0, 9, 0, 0, 7, 0, 0xA1, 0x61, 0x72, 0x65, 0x68, 0x65, 0x6C, 0x6C, 0x6F])])
        await server.close()
        await master.close()
        close(pty.heldSlave)
    }

    /// The §8.1 echo request `{"d": "hello"}` with a given sequence number.
    static func echoRequest(sequence: UInt8) -> [UInt8] {
        [0x0A, 0, 0, 9, 0, 0, sequence, 0, 0xA1, 0x61, 0x64, 0x65, 0x68, 0x65, 0x6C, 0x6C, 0x6F]
    }
}
