import SMPSerial
import Testing

@Suite("Serial connection options")
struct SerialConnectionOptionsTests {
    @Test("defaults: 115200 baud, 127-byte lines, console framing, no flow control, exclusive, packets sized by the device")
    func defaults() throws {
        let options = SerialConnectionOptions(path: "/dev/ttyUSB1")
        #expect(options.baudRate == 115_200)
        #expect(options.packetSize == nil)
        #expect(SerialConnectionOptions.defaultPacketSize == 256)
        #expect(options.lineLength == 127 && options.framing == .console && options.flowControl == .none && options.exclusive)
        try options.validate()
    }

    @Test("invalid settings name the problem", arguments: [
        (SerialConnectionOptions(path: ""), SerialOptionsError.missingDevice),
        (SerialConnectionOptions(path: "/dev/x", baudRate: 12345),
         SerialOptionsError.invalidValue(key: "baud", value: "12345", expected: "a standard baud rate such as 115200")),
        (SerialConnectionOptions(path: "/dev/x", packetSize: 4), SerialOptionsError.invalidValue(key: "mtu", value: "4", expected: "9 to 65533 bytes")),
        (SerialConnectionOptions(path: "/dev/x", lineLength: 5), SerialOptionsError.invalidValue(key: "linelength", value: "5", expected: "7 to 8192")),
    ])
    func invalid(options: SerialConnectionOptions, error: SerialOptionsError) {
        #expect(throws: error) { try options.validate() }
        #expect(!error.description.isEmpty)
    }

    @Test("packets follow the device's buf_size unless fixed: 256 bytes until it is known, buf_size - 4 in console framing")
    func packetSizeFollowsDevice() async throws {
        let console = try SerialTransport(options: SerialConnectionOptions(path: "/dev/ttyACM0"))
        #expect(console.maximumPacketSize == 256)
        await console.setDeviceBufferSize(2048)
        #expect(console.maximumPacketSize == 2044)
        #expect(console.linkUnit == 93)
        await console.setDeviceBufferSize(nil)
        #expect(console.maximumPacketSize == 256)

        let raw = try SerialTransport(options: SerialConnectionOptions(path: "/dev/ttyACM0", framing: .raw))
        await raw.setDeviceBufferSize(2475)
        #expect(raw.maximumPacketSize == 2475)
        #expect(raw.linkUnit == 2475)

        let fixed = try SerialTransport(options: SerialConnectionOptions(path: "/dev/ttyACM0", packetSize: 512))
        await fixed.setDeviceBufferSize(2048)
        #expect(fixed.maximumPacketSize == 512)
    }

    @Test("raw packets may be as large as an SMP header can say; console packets 4 bytes less than buf_size")
    func packetSizes() throws {
        try SerialConnectionOptions(path: "/dev/x", framing: .raw, packetSize: 65_543).validate()
        #expect(SerialConnectionOptions.packetSize(forDeviceBufferSize: 2048, framing: .console) == 2044)
        #expect(SerialConnectionOptions.packetSize(forDeviceBufferSize: 2048, framing: .raw) == 2048)
    }
}
