/// Small Python programs that drive the independent peers; each prints one JSON object as its last line.
enum PeerScripts {
    /// smpclient (the library under smpmgr) over every group smpmgr's CLI does not cover.
    /// Arguments: host.
    static let smpclientGroups = #"""
        import asyncio, json, sys
        from smpclient import SMPClient
        from smpclient.generics import success, error
        from smpclient.transport.udp import SMPUDPTransport
        from smpclient.requests.os_management import MCUMgrParametersRead, TaskStatisticsRead, DateTimeWrite, DateTimeRead, OSApplicationInfoRead
        from smpclient.requests.settings_management import WriteSetting, ReadSetting, DeleteSetting, CommitSettings, SaveSettings, LoadSettings
        from smpclient.requests.statistics_management import ListOfGroups, GroupData
        from smpclient.requests.shell_management import Execute
        from smpclient.requests.enumeration_management import CountSupportedGroups, GroupId, GroupDetails
        from smpclient.requests.zephyr_management import EraseStorage
        from smpclient.requests.file_management import FileStatus

        def describe(r):
            return {"ok": bool(success(r)), "type": type(r).__name__, **({} if success(r) else {"error": str(r)})}

        async def main(host):
            out = {}
            async with SMPClient(SMPUDPTransport(), host) as c:
                r = await c.request(MCUMgrParametersRead())
                out["params"] = [r.buf_size, r.buf_count]
                r = await c.request(TaskStatisticsRead())
                out["tasks"] = sorted(r.tasks.keys())
                r = await c.request(DateTimeWrite(datetime="2024-02-29T23:59:58"))
                out["datetime_set"] = describe(r)
                r = await c.request(DateTimeRead())
                out["datetime"] = r.datetime
                r = await c.request(OSApplicationInfoRead(format="snv"))
                out["info"] = r.output
                r = await c.request(WriteSetting(name="app/colour", val=b"blue"))
                out["setting_write"] = describe(r)
                r = await c.request(ReadSetting(name="app/colour"))
                out["setting_read"] = r.val.decode()
                for name, req in [("commit", CommitSettings()), ("save", SaveSettings()), ("load", LoadSettings()), ("delete", DeleteSetting(name="app/colour"))]:
                    out["setting_" + name] = describe(await c.request(req))
                r = await c.request(ReadSetting(name="app/colour"))
                out["setting_after_delete"] = describe(r)
                r = await c.request(ListOfGroups())
                out["stat_list"] = list(r.stat_list)
                r = await c.request(GroupData(name="smp"))
                out["stat_smp"] = dict(r.fields)
                r = await c.request(Execute(argv=["echo", "from", "smpclient"]))
                out["shell"] = [r.o, r.ret]
                r = await c.request(Execute(argv=["nonexistent"]))
                out["shell_unknown"] = [r.o, r.ret]
                r = await c.request(CountSupportedGroups())
                out["enum_count"] = r.count
                r = await c.request(GroupId(index=r.count - 1))
                out["enum_last"] = [int(r.group), r.end]
                r = await c.request(GroupDetails(groups=(0, 63)))
                out["enum_details"] = [[int(g.group), g.name, g.handlers] for g in r.groups]
                async for _ in c.upload_file(b"x" * 3000, "/lfs1/smpclient.bin"):
                    pass
                r = await c.request(FileStatus(name="/lfs1/smpclient.bin"))
                out["file_len"] = r.len
                r = await c.request(EraseStorage())
                out["erase_storage"] = describe(r)
                r = await c.request(FileStatus(name="/lfs1/smpclient.bin"))
                out["file_after_erase"] = describe(r)
            print(json.dumps(out))

        asyncio.run(main(sys.argv[1]))
        """#

    /// mcumgr-toolkit: echo (sent as a read), MCUmgr parameters, image state. Arguments: host.
    static let toolkitBasics = #"""
        import json, sys
        import mcumgr_toolkit as m
        c = m.MCUmgrClient.udp(sys.argv[1], 1337, timeout_ms=2000)
        out = {"echo": c.os_echo("hello from the toolkit")}
        p = c.os_mcumgr_parameters()
        out["params"] = [p.buf_size, p.buf_count]
        out["images"] = [{"image": s.image, "slot": s.slot, "version": s.version, "hash": (s.hash or b"").hex(),
                          "active": s.active, "confirmed": s.confirmed, "pending": s.pending, "permanent": s.permanent}
                         for s in c.image_get_state()]
        print(json.dumps(out))
        """#

    /// mcumgr-toolkit: upload, test, reset, state after the swap, confirm. Arguments: host, image path.
    static let toolkitUpgrade = #"""
        import json, os, sys, time
        import mcumgr_toolkit as m
        host, path = sys.argv[1], sys.argv[2]
        data = open(path, "rb").read()
        info = m.mcuboot_get_image_info(data)

        def states(c):
            return [{"image": s.image, "slot": s.slot, "version": s.version, "hash": (s.hash or b"").hex(),
                     "active": s.active, "confirmed": s.confirmed, "pending": s.pending, "permanent": s.permanent}
                    for s in c.image_get_state()]

        c = m.MCUmgrClient.udp(host, 1337, timeout_ms=2000)
        c.use_auto_frame_size()
        out = {"hash": info.hash.hex(), "version": info.version}
        c.image_upload(data)
        out["uploaded"] = states(c)
        out["tested"] = [{"slot": s.slot, "image": s.image, "pending": s.pending} for s in c.image_set_state(info.hash, False)]
        c.os_system_reset()
        # 15 s for the device to come back, times SMP_TEST_TIME_SCALE (TestTimeScale: make sanitize).
        deadline = time.time() + 15 * max(1.0, float(os.environ.get("SMP_TEST_TIME_SCALE") or 1))
        while True:
            time.sleep(0.2)
            try:
                c2 = m.MCUmgrClient.udp(host, 1337, timeout_ms=500)
                out["after_reset"] = states(c2)
                break
            except Exception as e:
                if time.time() > deadline:
                    raise
        c2.image_set_state(None, True)
        out["confirmed"] = states(c2)
        print(json.dumps(out))
        """#

    /// mcumgr-toolkit over the other groups. Arguments: host.
    static let toolkitGroups = #"""
        import json, sys, datetime, hashlib, zlib
        import mcumgr_toolkit as m
        c = m.MCUmgrClient.udp(sys.argv[1], 1337, timeout_ms=2000)
        out = {}
        out["tasks"] = sorted(c.os_task_statistics().keys())
        c.os_set_datetime(datetime.datetime(2025, 6, 7, 8, 9, 10))
        out["datetime"] = c.os_get_datetime().isoformat()
        out["info"] = c.os_application_info("sv")
        out["bootloader"] = c.os_bootloader_info()
        out["slot_info"] = [[i.image, [[s.slot, s.size, s.upload_image_id] for s in i.slots]] for i in c.image_slot_info()]
        out["stat_list"] = c.stats_list_groups()
        out["stat_smp"] = c.stats_get_group_data("smp")
        c.settings_write("app/volume", b"\x0b")
        out["setting"] = c.settings_read("app/volume").hex()
        ext = c.settings_read_ext("app/volume", 500)
        out["setting_ext"] = [ext.value.hex(), ext.max_size]
        c.settings_commit(); c.settings_save(); c.settings_load(); c.settings_delete("app/volume")
        try:
            c.settings_read("app/volume"); out["setting_deleted"] = False
        except Exception:
            out["setting_deleted"] = True
        payload = bytes(range(256)) * 20
        c.fs_file_upload("/lfs1/toolkit.bin", payload)
        out["download_equal"] = c.fs_file_download("/lfs1/toolkit.bin") == payload
        out["file_len"] = c.fs_file_status("/lfs1/toolkit.bin").length
        out["crc32"] = c.fs_file_checksum("/lfs1/toolkit.bin").output.hex()
        out["sha256"] = c.fs_file_checksum("/lfs1/toolkit.bin", "sha256").output.hex()
        out["expected_sha256"] = hashlib.sha256(payload).hexdigest()
        out["expected_crc32"] = "%08x" % zlib.crc32(payload)
        out["hash_types"] = sorted(c.fs_supported_checksum_types().keys())
        c.fs_file_close()
        out["shell"] = c.shell_execute(["echo", "toolkit", "shell"])
        try:
            c.shell_execute(["nonexistent"]); out["shell_unknown"] = "no error"
        except Exception as e:
            out["shell_unknown"] = str(e)
        out["enum_count"] = c.enum_get_group_count()
        out["enum_ids"] = c.enum_get_group_ids()
        out["enum_iter"] = list(c.enum_iter_group_ids())
        out["enum_details"] = [[d.group, d.name, d.handlers] for d in c.enum_get_group_details([1, 9])]
        c.zephyr_erase_storage()
        try:
            c.fs_file_status("/lfs1/toolkit.bin"); out["file_after_erase"] = "exists"
        except Exception:
            out["file_after_erase"] = "gone"
        print(json.dumps(out))
        """#

    /// mcumgr-toolkit uploading over a lossy link. Arguments: host, image path.
    static let toolkitLossyUpload = #"""
        import json, sys
        import mcumgr_toolkit as m
        host, path = sys.argv[1], sys.argv[2]
        data = open(path, "rb").read()
        c = m.MCUmgrClient.udp(host, 1337, timeout_ms=250)
        c.set_retries(30)
        c.image_upload(data)
        slots = [{"image": s.image, "slot": s.slot, "hash": (s.hash or b"").hex()} for s in c.image_get_state()]
        print(json.dumps({"slots": slots, "hash": m.mcuboot_get_image_info(data).hash.hex()}))
        """#
}
