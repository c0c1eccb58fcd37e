import Foundation
import McuMgr
import McuMgrConnection

/// Connects to the device at `address`, shows its images, and upgrades it with the image in `file`.
func upgrade(address: String, file: String) async throws {
    let link = try await ConnectionFactory.standard.connect(try ConnectionSpec(udpOption: address))   // port 1337 by default
    let client = link.client                                     // the session with this device
    do {
        print(try await DefaultManager(client: client).echo("hello"))
        for slot in try await ImageManager(client: client).list() { print(slot) }   // the slot table
        let image = try InputFile.mcubootImage(file)             // missing, not an image, hash mismatch: typed errors
        let report = try await FirmwareUpgradeManager(client: client).upgrade(images: [FirmwareUpgradeImage(image: image)])
        print(report)                                            // what was uploaded, tested, confirmed
    } catch {
        await link.close()
        throw error
    }
    await link.close()
}

let arguments = CommandLine.arguments.dropFirst()
do {
    try await upgrade(address: arguments.first ?? "192.0.2.1", file: arguments.dropFirst().first ?? "zephyr.signed.bin")
} catch {
    print("failed: \(error)")                                    // e.g. a FirmwareUpgradeError: the state and why
    exit(1)
}
