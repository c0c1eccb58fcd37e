import McuMgr
import McuMgrConnection
import McuMgrTools
import Testing

/// The tables `mcumgr` prints, from fixed device answers.
@Suite("Tables")
struct TablesTests {
    static let running = ImageSlot(slot: 0, version: "1.0.0", hash: [UInt8](repeating: 0x11, count: 32), confirmed: true, active: true)
    static let pending = ImageSlot(image: 1, slot: 1, version: "1.2.0", hash: [UInt8](repeating: 0xab, count: 32), pending: true, permanent: true)

    @Test("the image table, Go mcumgr's layout")
    func imageTable() {
        #expect(ImageTable([Self.running, Self.pending]).text == """
            Images:
             image=0 slot=0
                version: 1.0.0
                bootable: true
                flags: active confirmed
                hash: \(String(repeating: "11", count: 32))
             image=1 slot=1
                version: 1.2.0
                bootable: true
                flags: pending permanent
                hash: \(String(repeating: "ab", count: 32))
            """)
        #expect(ImageTable([]).text == "Images:\n (none)")
    }

    @Test("columns as wide as their widest cell, numbers right-aligned, no trailing spaces")
    func table() {
        #expect(TextFormat.table(header: ["name", "n", "note"], rows: [["a", "5", ""], ["long", "100", "x"]], rightAligned: [1]) == """
            name    n  note
            a       5
            long  100  x
            """)
    }

    @Test("device tables")
    func deviceTables() {
        #expect(DeviceTables.memoryPools(["heap": MemoryPoolStat(blockSize: 16, blockCount: 64, freeBlocks: 60, minimumFree: 2)]) == """
            name  blksz  cnt  free  min
            heap     16   64    60    2
            """)
        #expect(DeviceTables.groups([0, 1, 64]).split(separator: "\n").first == "group  name")
        #expect(DeviceTables.statistics(StatsGroup(name: "smp", fields: ["rx": 12, "tx": 7])) == "stat group: smp\n      12 rx\n       7 tx")
        #expect(DeviceTables.logModules(["DEFAULT": 0, "IMG": 5]) == "module   id\nDEFAULT   0\nIMG       5")
        #expect(DeviceTables.profiles(["b": ConnectionProfile(type: "udp", connstring: "127.0.0.1:1"), "a": ConnectionProfile(.simulator)]) == """
            name  type  connstring
            a     sim   -
            b     udp   127.0.0.1:1
            """)
    }
}
