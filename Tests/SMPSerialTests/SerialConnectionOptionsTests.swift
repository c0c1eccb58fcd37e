import SMPSerial
import Testing

@Suite("Serial connection options and Go mcumgr connection strings")
struct SerialConnectionOptionsTests {
    @Test("dev, baud and mtu as Go mcumgr writes them; defaults for the rest")
    func goConnectionString() throws {
        let options = try SerialConnectionOptions(connectionString: "dev=/dev/ttyACM0,baud=921600,mtu=512")
        #expect(options == SerialConnectionOptions(path: "/dev/ttyACM0", baudRate: 921_600, packetSize: 512))
        #expect(options.lineLength == 127 && options.framing == .console && options.flowControl == .none && options.exclusive)
    }

    @Test("defaults: 115200 baud, 127-byte lines, 256-byte packets; a bare path is the device")
    func defaults() throws {
        let options = try SerialConnectionOptions(connectionString: "/dev/ttyUSB1")
        #expect(options.path == "/dev/ttyUSB1")
        #expect(options.baudRate == 115_200)
        #expect(options.packetSize == nil)
        #expect(SerialConnectionOptions.defaultPacketSize == 256)
        #expect(options.lineLength == 127)
    }

    @Test("our extensions: line length, framing, raw, flow control, exclusive; spaces and case are forgiven")
    func extensions() throws {
        let options = try SerialConnectionOptions(connectionString: " dev = /dev/pts/3 , LineLength=512, raw=true, flow=rtscts, exclusive=false")
        #expect(options.path == "/dev/pts/3")
        #expect(options.lineLength == 512)
        #expect(options.framing == .raw)
        #expect(options.flowControl == .rtsCts)
        #expect(!options.exclusive)
        #expect(try SerialConnectionOptions(connectionString: "dev=/dev/x,framing=console").framing == .console)
    }

    @Test("errors name the problem", arguments: [
        ("baud=115200", SerialOptionsError.missingDevice),
        ("dev=/dev/x,speed=9600", SerialOptionsError.unknownKey("speed")),
        ("dev=/dev/x,baud=12345", SerialOptionsError.invalidValue(key: "baud", value: "12345", expected: "a standard baud rate such as 115200")),
        ("dev=/dev/x,baud=fast", SerialOptionsError.invalidValue(key: "baud", value: "fast", expected: "a positive whole number")),
        ("dev=/dev/x,mtu=4", SerialOptionsError.invalidValue(key: "mtu", value: "4", expected: "9 to 65533 bytes")),
        ("dev=/dev/x,linelength=5", SerialOptionsError.invalidValue(key: "linelength", value: "5", expected: "7 to 8192")),
        ("dev=/dev/x,raw=maybe", SerialOptionsError.invalidValue(key: "raw", value: "maybe", expected: "true or false")),
        ("dev=/dev/x,framing=slip", SerialOptionsError.invalidValue(key: "framing", value: "slip", expected: "console or raw")),
        ("dev=/dev/x,=3", SerialOptionsError.malformed("=3")),
        ("dev=/dev/x,oops", SerialOptionsError.malformed("oops")),
    ])
    func errors(text: String, error: SerialOptionsError) {
        #expect(throws: error) { try SerialConnectionOptions(connectionString: text) }
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

        let fixed = try SerialTransport(connectionString: "dev=/dev/ttyACM0,mtu=512")
        await fixed.setDeviceBufferSize(2048)
        #expect(fixed.maximumPacketSize == 512)
    }

    @Test("raw packets may be as large as an SMP header can say; console packets 4 bytes less than buf_size")
    func packetSizes() throws {
        #expect(try SerialConnectionOptions(connectionString: "dev=/dev/x,raw,mtu=65543").packetSize == 65543)
        #expect(SerialConnectionOptions.packetSize(forDeviceBufferSize: 2048, framing: .console) == 2044)
        #expect(SerialConnectionOptions.packetSize(forDeviceBufferSize: 2048, framing: .raw) == 2048)
        let unknown = SerialOptionsError.unknownKey("x").description
        #expect(unknown.contains("dev") && unknown.contains("baud") && unknown.contains("mtu"))
    }
}
