/// Python programs that drive the independent peers over a serial line; each prints one JSON
/// object as its last line. The first argument is the pty path.
enum SerialPeerScripts {
    /// mcumgr-toolkit (Rust client) over serial: echo (sent as a read) and MCUmgr parameters.
    /// Arguments: path, then `raw` for raw framing.
    static let toolkitBasics = #"""
        import json, sys
        import mcumgr_toolkit as m
        path = sys.argv[1]
        raw = len(sys.argv) > 2 and sys.argv[2] == "raw"
        c = (m.MCUmgrClient.raw_serial if raw else m.MCUmgrClient.serial)(path, 115200, timeout_ms=3000)
        out = {"echo": c.os_echo("hello over serial from the toolkit")}
        p = c.os_mcumgr_parameters()
        out["params"] = [p.buf_size, p.buf_count]
        out["images"] = [{"image": s.image, "slot": s.slot, "version": s.version, "active": s.active, "confirmed": s.confirmed}
                         for s in c.image_get_state()]
        print(json.dumps(out))
        """#

    /// mcumgr-client-wrapper (Python over the Rust `mcumgr-client`): image list, upload, image list.
    /// Arguments: path, image path.
    static let mcumgrClientUpload = #"""
        import json, sys
        import mcumgr_client
        path, image = sys.argv[1], sys.argv[2]
        s = mcumgr_client.SerialSession(path, baudrate=115200, initial_timeout_s=10, subsequent_timeout_ms=2000, nb_retry=4)
        def simple(images):
            return [{k: (bytes(v).hex() if k == "hash" else v) for k, v in i.items()} for i in images]
        out = {"before": simple(s.list())}
        progress = []
        s.upload(image, 0, lambda off, total: progress.append([off, total]))
        out["progress_last"] = progress[-1] if progress else None
        out["progress_calls"] = len(progress)
        out["after"] = simple(s.list())
        print(json.dumps(out, default=str))
        """#
}
