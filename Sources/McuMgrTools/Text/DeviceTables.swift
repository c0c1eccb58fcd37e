import McuMgr
import McuMgrConnection
import SMP

/// The tables `mcumgr` prints for device answers other than the image list (which is ``ImageTable``).
public enum DeviceTables {
    /// Threads by id then name: `task pri tid state runtime csw stksz stkuse last_checkin next_checkin`.
    public static func tasks(_ tasks: [String: TaskStat]) -> String {
        let names = tasks.keys.sorted { (tasks[$0]!.taskID, $0) < (tasks[$1]!.taskID, $1) }
        func n(_ value: Int?) -> String { value.map(String.init) ?? "-" }
        return TextFormat.table(
            header: ["task", "pri", "tid", "state", "runtime", "csw", "stksz", "stkuse", "last_checkin", "next_checkin"],
            rows: names.map { name in
                let t = tasks[name]!
                return [name, "\(t.priority)", "\(t.taskID)", "\(t.state)", t.runtime.map(String.init) ?? "-", n(t.contextSwitches),
                        n(t.stackSize), n(t.stackUsed), n(t.lastCheckin), n(t.nextCheckin)]
            },
            rightAligned: Set(1...9))
    }

    /// Memory pools by name: `name blksz cnt free min`.
    public static func memoryPools(_ pools: [String: MemoryPoolStat]) -> String {
        TextFormat.table(
            header: ["name", "blksz", "cnt", "free", "min"],
            rows: pools.keys.sorted().map { name in
                let p = pools[name]!
                return [name, "\(p.blockSize)", "\(p.blockCount)", "\(p.freeBlocks)", "\(p.minimumFree)"]
            },
            rightAligned: [1, 2, 3, 4])
    }

    /// Each image's slots and sizes: `image slot size max_image_size`.
    public static func slotInfo(_ images: [ImageSlotInfo]) -> String {
        TextFormat.table(
            header: ["image", "slot", "size", "max_image_size"],
            rows: images.flatMap { i in
                i.slots.map { ["\(i.image)", "\($0.slot)", "\($0.size)", i.maxImageSize.map(String.init) ?? "-"] }
            },
            rightAligned: [0, 1, 2, 3])
    }

    /// Group ids in the device's order with their usual names: `group name`.
    public static func groups(_ ids: [UInt16]) -> String {
        TextFormat.table(header: ["group", "name"], rows: ids.map { ["\($0)", SMPGroup(rawValue: $0).description] }, rightAligned: [0])
    }

    /// Groups with the device's names and handler counts: `group name handlers`.
    public static func groupDetails(_ details: [GroupDetails]) -> String {
        TextFormat.table(
            header: ["group", "name", "handlers"],
            rows: details.map { ["\($0.group)", $0.name ?? SMPGroup(rawValue: $0.group).description, $0.handlers.map(String.init) ?? "-"] },
            rightAligned: [0, 2])
    }

    /// The file hash and checksum types by name: `type output size`.
    public static func hashTypes(_ types: [String: HashTypeInfo]) -> String {
        TextFormat.table(
            header: ["type", "output", "size"],
            rows: types.keys.sorted().map { [$0, types[$0]!.isByteString ? "bytes" : "integer", "\(types[$0]!.size)"] },
            rightAligned: [2])
    }

    /// Log modules by id: `module id`.
    public static func logModules(_ modules: [String: Int]) -> String {
        TextFormat.table(
            header: ["module", "id"], rows: modules.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.map { [$0.key, "\($0.value)"] },
            rightAligned: [1])
    }

    /// A statistics group: its name, then each counter right-aligned beside its name, by name.
    public static func statistics(_ group: StatsGroup) -> String {
        let width = group.fields.values.map { String($0).count }.max() ?? 1
        return (["stat group: \(group.name)"] + group.fields.keys.sorted().map {
            TextFormat.right(String(group.fields[$0]!), max(8, width)) + " " + $0
        }).joined(separator: "\n")
    }

    /// Saved connection profiles by name: `name type connstring`.
    /// A column of session settings (`timeout=1 retries=0`) is added when any profile sets one.
    public static func profiles(_ profiles: [String: ConnectionProfile]) -> String {
        let names = profiles.keys.sorted()
        let withSettings = profiles.values.contains { !$0.settingsSummary.isEmpty }
        return TextFormat.table(
            header: ["name", "type", "connstring"] + (withSettings ? ["settings"] : []),
            rows: names.map { name in
                let profile = profiles[name]!
                let settings = profile.settingsSummary.isEmpty ? "-" : profile.settingsSummary.joined(separator: " ")
                return [name, profile.type, profile.connstring ?? "-"] + (withSettings ? [settings] : [])
            })
    }
}
