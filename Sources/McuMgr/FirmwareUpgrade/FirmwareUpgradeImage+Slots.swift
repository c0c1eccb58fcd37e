import SMP

extension FirmwareUpgradeImage {
    /// The images an upgrade sends, one per image number: where `images` holds one per slot of an
    /// image number (a direct-XIP package), the one already on the device, else the one built for
    /// the slot the device is not running from (direct-XIP), or for the primary slot (swap modes,
    /// which run every image from the primary).
    static func choosingSlots(_ images: [FirmwareUpgradeImage], slots: [ImageSlot], bootloader: BootloaderMode?) -> [FirmwareUpgradeImage] {
        var chosen: [FirmwareUpgradeImage] = []
        for index in Set(images.map(\.index)).sorted() {
            let variants = images.filter { $0.index == index }
            guard variants.count > 1 else {
                chosen += variants
                continue
            }
            if let present = variants.first(where: { variant in slots.contains { $0.image == index && $0.hash == variant.image.hash } }) {
                chosen.append(present)
                continue
            }
            let directXIP = bootloader == .directXIP || bootloader == .directXIPWithRevert
            let running = slots.first { $0.image == index && $0.active }?.slot ?? 0
            let target = directXIP ? 1 - running : 0
            chosen.append(variants.first { $0.slot == target } ?? variants[0])
        }
        return chosen
    }
}
