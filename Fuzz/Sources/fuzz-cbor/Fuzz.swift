// products: CBOR McuMgr SMP
import CBOR
import FuzzSupport
import McuMgr
import SMP

/// CBOR from outside (any answer's payload): libcbor through `CBORReader`, then the `Codable`
/// decoder into the response types a device's answer becomes. Every input decodes or fails with
/// a typed error; what decodes re-encodes to bytes that decode to the same encoding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCBOR(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    guard let value = try? CBORReader().decode(input.bytes) else { return 0 }
    let writer = CBORWriter(sortsMapKeys: false)
    let encoded = writer.encode(value)
    guard let again = try? CBORReader().decode(encoded) else { fatalError("our own encoding of \(value) does not decode") }
    precondition(writer.encode(again) == encoded, "re-encoding \(value) changed it")
    _ = try? SMPDeviceError(response: value)
    _ = try? UploadAcknowledgement(response: value, upload: "fuzz")
    let decoder = CBORDecoder()
    _ = try? decoder.decode(ImageStateResponse.self, from: value)
    _ = try? decoder.decode(ImageSlotInfoResponse.self, from: value)
    _ = try? decoder.decode(StatsListResponse.self, from: value)
    _ = try? decoder.decode(StatsGroup.self, from: value)
    _ = try? decoder.decode(FileDownloadResponse.self, from: value)
    _ = try? decoder.decode(FileHash.self, from: value)
    _ = try? decoder.decode(TaskStatsResponse.self, from: value)
    _ = try? decoder.decode(ShellResult.self, from: value)
    _ = try? decoder.decode(LogShowResponse.self, from: value)
    _ = try? decoder.decode(BootloaderInfoResponse.self, from: value)
    _ = try? decoder.decode(SMPDeviceBuffers.self, from: value).validated()
    _ = value.description
    return 0
}
