import CBOR
import SMP

extension ConformanceContext {
    /// The slot of image 0 that uploads go to (the one not running), and why the run may not
    /// write it when it may not: it holds an image the run could not put back (SMP cannot read
    /// an image out), or the device lists no images.
    func uploadSlot() async throws(ConformanceAbort) -> (slot: Int, refusal: String?) {
        guard let table = try await initialImageTable() else { return (1, "the device lists no images (image state read)") }
        let active = table.first { $0.image == 0 && $0.active }?.slot ?? 0
        let slot = active == 0 ? 1 : 0
        if let held = ImageSlotRow.find(table, slot: slot) {
            return (slot, "slot \(slot) of image 0 holds an image (\(held)) this run could not put back: erase it first")
        }
        if let why = ImageSlotRow.resetWouldChange(table) { return (slot, "the images are in the middle of an upgrade: \(why)") }
        return (slot, nil)
    }

    /// Erases `slot` of image 0; what went wrong, or `nil`.
    func erase(slot: Int) async throws(ConformanceAbort) -> String? {
        let request = ProbeRequest(.write, group: .image, command: 5, value: .textMap(["slot": .int(slot)]))
        guard let answer = try await ask(request) else { return "no answer to erasing slot \(slot)" }
        return answer.isSuccess ? nil : "erasing slot \(slot) was answered \(answer.summary)"
    }

    /// The MCUboot mode from bootloader info (query "mode"), asked once; `nil` when unknown.
    func bootloaderMode() async throws(ConformanceAbort) -> Int? {
        if let known = facts.withLock({ $0.bootloaderMode }) { return known }
        let query = ProbeRequest(.read, group: .os, command: 8, value: .textMap(["query": .text("mode")]))
        let mode = try await ask(query).flatMap { $0.isSuccess ? $0.value?["mode"]?.intValue : nil }
        facts.withLock { $0.bootloaderMode = .some(mode) }
        return mode
    }

    /// The image left in the upload slot for the swap checks, if any.
    var uploadedImage: [UInt8]? {
        get { facts.withLock { $0.uploadedImage } }
    }

    /// Records (or forgets) the image left in the upload slot.
    func setUploadedImage(_ image: [UInt8]?) {
        facts.withLock { $0.uploadedImage = image }
    }
}
