import Benchmark
import CBOR
import McuBoot
import McuMgr
import SMP
import SMPSerial
import SMPTestSupport

// What one upload chunk costs the client, piece by piece, with allocations per operation.
// Byte throughput = the `throughput` (operations/s) × the bytes named in each benchmark's name.
// Run: swift package --allow-writing-to-package-directory benchmark   (in Benchmarks/)

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal, .mallocBytesCount],
        warmupIterations: 3,
        maxDuration: .seconds(2),
        maxIterations: 100_000
    )

    Benchmark("Upload chunk request: encode (\(Fixtures.chunkLength) data bytes)") { benchmark in
        let target = Fixtures.target
        let data = Fixtures.uploadData
        let length = Fixtures.chunkLength
        for i in benchmark.scaledIterations {
            let offset = (i * length) % (data.count - length)
            let request = try target.request(offset: offset, data: data[offset..<(offset + length)], totalLength: data.count, isFirst: false)
            let payload = CBORWriter().encode(request.payload)
            let header = SMPHeader(
                version: .v2, operation: request.operation, length: UInt16(payload.count), group: request.group.rawValue,
                sequence: UInt8(i & 0xff), command: request.command)
            blackHole(header.packet(payload: payload))
        }
    }

    Benchmark("Upload chunk response: decode (\(Fixtures.uploadResponse.count) bytes)") { benchmark in
        let bytes = Fixtures.uploadResponse
        let target = Fixtures.target
        for _ in benchmark.scaledIterations {
            let packet = try SMPPacket(decoding: bytes)
            blackHole(try target.acknowledgement(from: try packet.decodedPayload()))
        }
    }

    Benchmark("SMPClient round trip: one upload chunk request over the loopback (encoded, sent, answer decoded)") { benchmark in
        let session = RoundTripSession.shared
        let payload = session.chunkPayload
        for _ in benchmark.scaledIterations {
            let answer = try await session.client.request(.write, group: .image, command: 1, payload: payload, retryPolicy: .resend)
            blackHole(answer)
        }
    }

    let streamSize = Fixtures.rawStream.count
    for (size, notifications) in [(244, Fixtures.notifications), (20, Fixtures.smallNotifications)] {
        Benchmark("Packet assembler: raw stream in \(size)-byte BLE notifications (\(streamSize) bytes)") { benchmark in
            for _ in benchmark.scaledIterations {
                var assembler = SMPPacketAssembler.responses(maximumPacketSize: 4096)
                var packets = 0
                for notification in notifications {
                    assembler.append(notification) { if case .packet = $0 { packets += 1 } }
                }
                precondition(packets == Fixtures.largePackets.count)
            }
        }
    }

    let serialStreams: [(String, SerialFraming, [ArraySlice<UInt8>])] = [
        ("raw framing, 64-byte reads (\(streamSize) bytes)", .raw, Fixtures.rawReads),
        ("console frames, 64-byte reads (\(streamSize) packet bytes)", .console, Fixtures.consoleReads),
    ]
    for (name, framing, reads) in serialStreams {
        Benchmark("Serial decoder: \(name)") { benchmark in
            for _ in benchmark.scaledIterations {
                var decoder = SerialPacketDecoder(framing: framing, maximumPacketSize: 4096, operations: [.readResponse, .writeResponse])
                var packets = 0
                for read in reads {
                    decoder.append(read) { if case .packet = $0 { packets += 1 } }
                }
                precondition(packets == Fixtures.largePackets.count)
            }
        }
    }

    Benchmark(
        "McuBoot: parse + SHA-256 verify (\(Fixtures.mebibyteImage.count) bytes)",
        configuration: .init(
            metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal, .mallocBytesCount],
            warmupIterations: 1, maxDuration: .seconds(3), maxIterations: 200)
    ) { benchmark in
        let bytes = Fixtures.mebibyteImage
        for _ in benchmark.scaledIterations {
            let image = try McuBootImage(bytes: bytes)
            try image.verifyHash()
            blackHole(image)
        }
    }
}

/// A session on a loopback whose device end answers every request at once with `{"off": …}`.
actor RoundTripSession {
    static let shared = RoundTripSession()

    let client: SMPClient
    let chunkPayload: CBORValue
    private var responder: Task<Void, Never>?

    private init() {
        let transport = LoopbackTransport(maximumPacketSize: 2048)
        client = SMPClient(transport: transport, configuration: SMPClient.Configuration(timeout: .seconds(5)))
        let length = Fixtures.chunkLength
        let request = try! Fixtures.target.request(offset: length, data: Fixtures.uploadData[length..<(2 * length)], totalLength: Fixtures.uploadSize, isFirst: false)
        chunkPayload = request.payload
        let device = transport.device
        let answer = CBORWriter().encode(.textMap(["off": .int(2 * length)]))
        responder = Task {
            for await request in device.requests {
                guard let header = try? SMPHeader(decoding: request) else { continue }
                let response = SMPHeader(
                    version: header.version, operation: header.operation.response, length: UInt16(answer.count), group: header.group,
                    sequence: header.sequence, command: header.command)
                device.respond(response.packet(payload: answer))
            }
        }
    }
}
