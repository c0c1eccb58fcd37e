#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (Fuzz/corpus/fuzz-NAME/) from the test fixtures.

Run from the repository root with the project venv (cbor2 encodes the SMP payloads):
    .venv/bin/python Fuzz/make-seeds.py
The output is committed; it is small (a few hundred files, ~100 KiB) and the same on every run.
Seeds come from Tests/CBORTests/Fixtures/cbor2-vectors.json (CBOR vectors and SMP payloads),
Tests/McuBootTests/Fixtures/images (MCUboot images made with imgtool), and the worked examples
of the protocol reference (SMP packets), re-encoded with cbor2; serial frames are made by the
`smp` package's console framing (smpclient's), ATT PDUs and HCI packets by bumble.
"""
import base64
import hashlib
import json
import pathlib
import shutil
import struct

import cbor2

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "Fuzz" / "corpus"


def write(target, name, data):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(bytes(data))


def header(op, group, seq, cmd, length, version=1):
    return bytes([(version << 3) | op, 0]) + struct.pack(">HHBB", length, group, seq, cmd)


def packet(op, group, seq, cmd, payload, version=1):
    body = payload if isinstance(payload, (bytes, bytearray)) else cbor2.dumps(payload)
    return header(op, group, seq, cmd, len(body), version) + body


def indefinite_map(entries):
    """A map as a default Zephyr build encodes it: 0xbf ... 0xff."""
    out = b"\xbf"
    for key, value in entries.items():
        out += cbor2.dumps(key) + cbor2.dumps(value)
    return out + b"\xff"


def piece(data):
    return struct.pack(">H", len(data)) + data


def main():
    if CORPUS.exists():
        shutil.rmtree(CORPUS)
    vectors = json.loads((ROOT / "Tests/CBORTests/Fixtures/cbor2-vectors.json").read_text())

    # CBOR: every vector (definite and indefinite) and the SMP payloads.
    for index, vector in enumerate(vectors["vectors"] + vectors["indefinite"]):
        write("fuzz-cbor", f"vector-{index:03}", bytes.fromhex(vector["hex"]))
    for index, vector in enumerate(vectors["smp"]):
        write("fuzz-cbor", f"smp-{index:02}", bytes.fromhex(vector["hex"]))

    # SMP packets: the reference's worked examples (smp-reference §8), definite and as Zephyr sends them.
    image_hash = bytes.fromhex("150dab841b12b517b5421a0c97ebbb3f2f4df1f12f11f36906eb52301ffb53c5")
    responses = {
        "echo": packet(3, 0, 0x42, 0, {"r": "hello"}),
        "echo-zephyr": packet(3, 0, 0x42, 0, indefinite_map({"r": "hello"})),
        "upload-off": packet(3, 1, 0x10, 1, {"off": 64}),
        "upload-match": packet(3, 1, 0x19, 1, {"off": 584, "match": True}),
        "hash-not-found": packet(3, 1, 0x20, 0, {"err": {"group": 1, "rc": 8}}),
        "hash-not-found-zephyr": packet(3, 1, 0x20, 0, indefinite_map({"err": {"group": 1, "rc": 8}})),
        "rc-v1": packet(3, 1, 0x20, 0, {"rc": 1}, version=0),
        "enotsup": packet(1, 0, 0x21, 3, {"rc": 8}),
        "params": packet(1, 0, 0x50, 6, {"buf_size": 2475, "buf_count": 4}),
        "reset": packet(3, 0, 0x51, 5, {}),
        "image-list": packet(1, 1, 0x31, 0, {"images": [
            {"slot": 0, "version": "1.2.3.4", "hash": image_hash, "bootable": True, "pending": False,
             "confirmed": True, "active": True, "permanent": False}]}),
        "fs-download": packet(1, 8, 0x60, 0, {"off": 0, "data": b"hello", "len": 5}),
    }
    for name, data in responses.items():
        write("fuzz-smp-packet", name, data)
    write("fuzz-smp-packet", "two-packets", responses["echo"] + responses["upload-off"])
    write("fuzz-smp-packet", "image-list-request", packet(0, 1, 0x31, 0, {}))

    # The assembler: a size limit, the responses' side, then the packets in several fragmentations.
    stream = b"".join(responses.values())
    for size in (1, 7, 20, 255):
        pieces = b"".join(bytes([len(stream[i:i + size])]) + stream[i:i + size] for i in range(0, len(stream), size))
        write("fuzz-packet-assembler", f"responses-by-{size}", bytes([40, 0]) + pieces)
    requests = packet(2, 0, 1, 0, {"d": "hello"}) + packet(0, 1, 2, 0, {})
    write("fuzz-packet-assembler", "requests", bytes([40, 1, len(requests)]) + requests)

    # MCUboot images: the McuBoot test fixtures (imgtool-made, 1.6 to 4 KiB).
    for image in sorted((ROOT / "Tests/McuBootTests/Fixtures/images").glob("*.bin")):
        write("fuzz-mcuboot-image", image.stem, image.read_bytes())

    # The simulator: request sequences a client sends (each buffer a two-byte length and the bytes).
    image = (ROOT / "Tests/McuBootTests/Fixtures/images/unsigned.bin").read_bytes()
    sha = hashlib.sha256(image).digest()
    upload = [packet(2, 1, 10, 1, {"off": 0, "len": len(image), "sha": sha, "image": 0, "data": image[:512], "upgrade": False})]
    upload += [packet(2, 1, 11 + i, 1, {"off": off, "data": image[off:off + 512]})
               for i, off in enumerate(range(512, len(image), 512))]
    sequences = {
        "echo": [packet(2, 0, 1, 0, {"d": "hello"}), packet(0, 0, 2, 0, {"d": "read"})],
        "os": [packet(0, 0, 1, 6, {}), packet(0, 0, 2, 7, {"format": "a"}), packet(0, 0, 3, 8, {"query": "mode"}),
               packet(0, 0, 4, 2, {}), packet(2, 0, 5, 4, {"datetime": "2024-01-02T03:04:05"}), packet(0, 0, 6, 4, {}),
               packet(0, 0, 7, 8, {})],
        "upload-test-reset-confirm": upload + [packet(0, 1, 40, 0, {}), packet(2, 0, 41, 5, {}), packet(0, 1, 42, 0, {}),
                                               packet(2, 1, 43, 0, {"confirm": True}), packet(2, 1, 44, 5, {"slot": 1}),
                                               packet(0, 1, 45, 6, {})],
        "settings": [packet(2, 3, 1, 0, {"name": "app/x", "val": b"\x01\x02"}), packet(0, 3, 2, 0, {"name": "app/x"}),
                     packet(2, 3, 3, 3, {}), packet(2, 3, 4, 1, {"name": "app/x"}), packet(0, 3, 5, 3, {}),
                     packet(2, 3, 6, 2, {})],
        "fs": [packet(2, 8, 1, 0, {"name": "/lfs1/a.txt", "off": 0, "len": 5, "data": b"hello"}),
               packet(0, 8, 2, 1, {"name": "/lfs1/a.txt"}), packet(0, 8, 3, 2, {"name": "/lfs1/a.txt", "type": "sha256"}),
               packet(0, 8, 4, 0, {"name": "/lfs1/a.txt", "off": 0}), packet(0, 8, 5, 3, {}), packet(2, 8, 6, 4, {})],
        "shell-stats-enum-log": [packet(2, 9, 1, 0, {"argv": ["fs", "ls", "/lfs1"]}), packet(0, 2, 2, 1, {}),
                                 packet(0, 2, 3, 0, {"name": "smp"}), packet(0, 10, 4, 0, {}), packet(0, 10, 5, 1, {}),
                                 packet(0, 10, 6, 2, {"index": 1}), packet(0, 10, 7, 3, {}), packet(0, 4, 8, 0, {}),
                                 packet(0, 4, 9, 5, {}), packet(2, 63, 10, 0, {})],
        "v1-and-concatenated": [packet(0, 1, 1, 0, {}, version=0), packet(2, 0, 2, 0, {"d": "a"}) + packet(2, 0, 3, 0, {"d": "b"}),
                                header(2, 0, 4, 0, 100) + b"\xa0"],
    }
    for name, buffers in sequences.items():
        write("fuzz-simulator", name, b"".join(piece(b) for b in buffers))

    # Upload answers: depth, packet size, then the answer to the parameters read and to each chunk.
    def answers(depth, size, payloads):
        return bytes([depth, size]) + b"".join(piece(p if isinstance(p, bytes) else cbor2.dumps(p)) for p in payloads)
    params = {"buf_size": 256, "buf_count": 4}
    chunk = 160 + 96 - 40  # roughly what a chunk carries in a 256-byte packet
    progress = [{"off": min(3000, chunk * (i + 1))} for i in range(20)]
    write("fuzz-upload-answers", "progress", answers(0, 160, [params] + progress))
    write("fuzz-upload-answers", "progress-deep", answers(2, 160, [params] + progress))
    write("fuzz-upload-answers", "stays", answers(0, 160, [params] + [{"off": 512}] * 20))
    write("fuzz-upload-answers", "backwards", answers(1, 160, [params] + [{"off": 1024}, {"off": 700}, {"off": 300}, {"off": 0}] * 4))
    write("fuzz-upload-answers", "busy", answers(0, 160, [params, {"rc": 10}, {"rc": 2}] + progress))
    write("fuzz-upload-answers", "errors", answers(0, 160, [{"rc": 8}, {"err": {"group": 1, "rc": 30}}]))
    write("fuzz-upload-answers", "done-at-once", answers(0, 160, [params, {"off": 3000, "match": True}]))
    write("fuzz-upload-answers", "malformed", answers(0, 160, [params, b"\xff", b"\xa1\x63off\x3a"]))

    serial_frames(responses)
    att_gatt()
    hci_l2cap()
    hci_host()


def pieces_of(stream, size):
    """A stream as fuzz pieces: each a length byte and up to `size` (1-255) bytes."""
    return b"".join(bytes([len(stream[i:i + size])]) + stream[i:i + size] for i in range(0, len(stream), size))


def serial_frames(responses):
    """fuzz-serial-frames: flags, limit, line limit, frame length, the clean packet's payload, pieces."""
    from smp import packet as console  # smpclient's console framing, an independent encoder

    def framed(data, line_length=127):
        return b"".join(console.encode(data, line_length=line_length))

    def seed(name, flags, stream, size, limit=80, line=30, frame=120, clean=b"\xa1\x61r\x62ok"):
        # limit 8 + 80 * 32 = 2568 bytes, lines of 7 + 30 * 4 = 127, clean frames of 127.
        write("fuzz-serial-frames", name, bytes([flags, limit, line, frame, len(clean)]) + clean + pieces_of(stream, size))

    packets = list(responses.values())
    text = b"uart:~$ \r\n[00:00:01.000,000] <inf> main: booting\r\n"
    console_stream = text + b"".join(framed(p) + (text if i % 3 == 0 else b"") for i, p in enumerate(packets))
    for size in (1, 7, 64, 255):
        seed(f"console-by-{size}", 0, console_stream, size)
    seed("console-short-lines", 0, b"".join(framed(p, 24) for p in packets), 33, line=5, frame=17)
    big = packet(1, 8, 0x61, 0, {"off": 0, "data": bytes(range(256)) * 4, "len": 1024})
    seed("console-multi-frame", 0, framed(big), 200)
    seed("console-small-limit", 0, console_stream, 50, limit=1)
    bad_crc = bytearray(framed(packets[0]))
    bad_crc[5] = ord("A") if bad_crc[5] != ord("A") else ord("B")
    truncated = framed(big)[:300]
    lying = b"\x06\t" + base64.b64encode(b"\xff\xff" + packets[1][:30]) + b"\n"
    bad_base64 = b"\x06\t!!notbase64!!\n" + b"\x04\x14AAAA\n"
    garbage = b"\x06\x06\t\x04\x14\x04" + bytes(range(256))
    seed("console-faults", 0, bytes(bad_crc) + truncated + lying + bad_base64 + garbage + framed(packets[2]), 41)
    raw_stream = b"".join(packets)
    for size in (1, 13, 255):
        seed(f"raw-by-{size}", 1, raw_stream, size)
    seed("raw-garbage", 3, b"\xff\x00garbage" + raw_stream[:20] + header(3, 0, 1, 0, 0xFFFF) + raw_stream, 17)


def att_gatt():
    """fuzz-att-gatt: preferred MTU, timeout, calls, then the peer's turns of bumble-made PDUs."""
    from bumble import att
    from bumble.core import UUID

    smp_service = UUID("8D53DC1D-1DB7-4CD3-868B-8A527460AA84")
    smp_characteristic = UUID("DA2E7828-FBCE-4E01-AE9E-261174997C48")

    def le16(value):
        return struct.pack("<H", value)

    def not_found(request, handle):
        return att.ATT_Error_Response(request_opcode_in_error=request, attribute_handle_in_error=handle, error_code=0x0A)

    def turn(*pdus, disconnect=False):
        return bytes([len(pdus) | (0x80 if disconnect else 0)]) + b"".join(bytes([len(bytes(p))]) + bytes(p) for p in pdus)

    def seed(name, calls, turns, mtu=237, timeout=0):
        # MTU 23 + 237 * 2 = 497 (498 offered after the bearer cap), timeout 30 s (0) or 50 ms steps.
        write("fuzz-att-gatt", name, bytes([mtu, timeout, len(calls) - 1]) + b"".join(calls) + b"".join(turns))

    echo = packet(3, 0, 0x42, 0, {"r": "hello"})
    mtu_rsp = att.ATT_Exchange_MTU_Response(server_rx_mtu=247)
    services = att.ATT_Find_By_Type_Value_Response(handles_information_list=le16(0x10) + le16(0x13))
    declaration = bytes([0x14]) + le16(0x12) + smp_characteristic.to_bytes()
    characteristics = att.ATT_Read_By_Type_Response(length=2 + len(declaration), attribute_data_list=le16(0x11) + declaration)
    descriptors = att.ATT_Find_Information_Response(format=1, information_data=le16(0x13) + UUID.from_16_bits(0x2902).to_bytes())
    write_rsp = att.ATT_Write_Response()
    notification = att.ATT_Handle_Value_Notification(attribute_handle=0x12, attribute_value=echo)
    read_rsp = att.ATT_Read_Response(attribute_value=b"\x01\x02")
    # Calls: 0 MTU, 1 services by UUID, 3 characteristics, 5 CCCD (1: notifications), 7 write
    # (length, value, handle), 8 command, 6 read (handle), 2 all services, 9 three at once, 11 close.
    write_call = bytes([7, len(echo)]) + echo + le16(0x12)
    command_call = bytes([8, len(echo)]) + echo + le16(0x12)
    read_call = bytes([6]) + le16(0x12)
    session = [bytes([0]), bytes([1]), bytes([3]), bytes([5, 1]), write_call, command_call, read_call]
    answers = [
        turn(),
        turn(mtu_rsp),
        turn(services), turn(not_found(0x06, 0x14)),
        turn(characteristics), turn(not_found(0x08, 0x12)),
        turn(descriptors), turn(write_rsp, notification),
        turn(write_rsp),
        turn(notification),
        turn(read_rsp),
    ]
    seed("session", session, answers)
    seed("silent-peer", session, [turn()], timeout=20)
    group = att.ATT_Read_By_Group_Type_Response(
        length=4 + 16, attribute_data_list=le16(0x10) + le16(0x13) + smp_service.to_bytes())
    seed("all-services", [bytes([2]), bytes([3])], [turn(), turn(group), turn(not_found(0x10, 0x14)), turn(characteristics)])
    peer_requests = turn(att.ATT_Exchange_MTU_Request(client_rx_mtu=100), att.ATT_Read_Request(attribute_handle=3),
                         att.ATT_Handle_Value_Indication(attribute_handle=0x12, attribute_value=b"\x00"))
    seed("peer-requests", [bytes([10]) + le16(0x12), bytes([0]), read_call],
         [peer_requests, turn(att.ATT_Find_Information_Request(starting_handle=1, ending_handle=0xFFFF)), turn(mtu_rsp), turn(read_rsp)])
    seed("concurrent-then-close", [bytes([9]) + le16(0x12) + bytes([2, 1, 2]), bytes([11]), bytes([0])],
         [turn(), turn(read_rsp), turn(write_rsp), turn(mtu_rsp)])
    seed("disconnect", [bytes([0]), bytes([1])], [turn(), turn(mtu_rsp, disconnect=True)])
    seed("errors-and-garbage", [bytes([0]), bytes([1]), bytes([3]), bytes([4])],
         [turn(b"\xff\x00", b"\x01\x02"), turn(att.ATT_Error_Response(request_opcode_in_error=0x02, attribute_handle_in_error=0, error_code=0x06)),
          turn(b"\x07\x10\x00"), turn(b"\x09\x07\x11\x00\x14\x12\x00\x00"), turn(b"\x05\x03\x13\x00")])
    for name, pdu in [("mtu-rsp", mtu_rsp), ("services", services), ("characteristics", characteristics),
                      ("descriptors", descriptors), ("group", group), ("notification", notification)]:
        # Lone PDUs: the whole input is decoded as one.
        write("fuzz-att-gatt", f"pdu-{name}", bytes(pdu))


def hci_l2cap():
    """fuzz-hci-l2cap: mode 0 and an H4 stream, or mode 1 and ACL packets; made by bumble."""
    from bumble import att, hci, l2cap

    address = hci.Address("C0:11:22:33:44:55", hci.Address.RANDOM_DEVICE_ADDRESS)
    advertising = bytes([2, 1, 6, 17, 7]) + bytes.fromhex("84aa6074528a8b86d34cb71d1ddc538d") + bytes([5, 9]) + b"zeph"
    report = hci.HCI_LE_Advertising_Report_Event.Report(event_type=0, address_type=1, address=address, data=advertising, rssi=-60)

    def acl(handle, payload, channel=4, pb=2):
        pdu = bytes(l2cap.L2CAP_PDU(channel, payload))
        return bytes(hci.HCI_AclDataPacket(connection_handle=handle, pb_flag=pb, bc_flag=0, data_total_length=len(pdu), data=pdu))

    def fragments(handle, payload, size, channel=4):
        """The PDU as H4 ACL packets of up to `size` data bytes: a start, then continuations."""
        pdu = bytes(l2cap.L2CAP_PDU(channel, payload))
        return [bytes(hci.HCI_AclDataPacket(connection_handle=handle, pb_flag=2 if offset == 0 else 1, bc_flag=0,
                                            data_total_length=len(pdu[offset:offset + size]), data=pdu[offset:offset + size]))
                for offset in range(0, len(pdu), size)]

    update = bytes(l2cap.L2CAP_Connection_Parameter_Update_Request(identifier=1, interval_min=24, interval_max=40, latency=0, timeout=400))
    mtu = bytes(att.ATT_Exchange_MTU_Request(client_rx_mtu=247))
    notification = bytes(att.ATT_Handle_Value_Notification(attribute_handle=0x12, attribute_value=bytes(range(200))))
    events = [
        hci.HCI_Command_Complete_Event(num_hci_command_packets=1, command_opcode=0x0C03, return_parameters=b"\x00"),
        hci.HCI_Command_Status_Event(status=0, num_hci_command_packets=1, command_opcode=0x200D),
        hci.HCI_LE_Advertising_Report_Event(reports=[report, report]),
        hci.HCI_LE_Connection_Complete_Event(status=0, connection_handle=0x40, role=0, peer_address_type=1, peer_address=address,
                                             connection_interval=24, peripheral_latency=0, supervision_timeout=400, central_clock_accuracy=0),
        hci.HCI_LE_Data_Length_Change_Event(connection_handle=0x40, max_tx_octets=251, max_tx_time=2120, max_rx_octets=251, max_rx_time=2120),
        hci.HCI_Number_Of_Completed_Packets_Event(connection_handles=[0x40], num_completed_packets=[2]),
        hci.HCI_Encryption_Change_Event(status=0, connection_handle=0x40, encryption_enabled=1),
    ]
    stream = b"".join(bytes(event) for event in events)
    stream += acl(0x40, mtu) + acl(0x40, update, channel=5) + b"".join(fragments(0x40, notification, 27) + fragments(0x001, notification, 64))
    stream += bytes(hci.HCI_Disconnection_Complete_Event(status=0, connection_handle=0x40, reason=0x13))
    write("fuzz-hci-l2cap", "h4-session", b"\x00" + stream)
    write("fuzz-hci-l2cap", "h4-events", b"\x00" + b"".join(bytes(event) for event in events))
    write("fuzz-hci-l2cap", "h4-out-of-step", b"\x00" + stream[:40] + b"\x07\x09" + stream[40:])
    write("fuzz-hci-l2cap", "h4-long-acl", b"\x00\x02\x40\x20\x00\x08" + bytes(2048) + stream[:30])
    # ACL packets without their H4 byte, as HCIFuzzing.aclReassembly reads them.
    write("fuzz-hci-l2cap", "acl-fragments", b"\x01" + b"".join(p[1:] for p in fragments(0x001, notification, 27)))
    lying = bytes(hci.HCI_AclDataPacket(connection_handle=1, pb_flag=2, bc_flag=0, data_total_length=4, data=b"\xff\xff\x04\x00"))
    write("fuzz-hci-l2cap", "acl-faults", b"\x01" + lying[1:] + acl(1, mtu)[1:] + acl(7, mtu)[1:] + acl(1, update, channel=5)[1:])
    for index, event in enumerate(events):
        write("fuzz-hci-l2cap", f"event-{index}", b"\x00" + bytes(event))
    write("fuzz-hci-l2cap", "signal-update", b"\x01" + update)
    write("fuzz-hci-l2cap", "advertising", b"\x01" + advertising)


def hci_host():
    """fuzz-hci-host: a scenario byte (0 scan, 1 find, 2 connect and GATT, 3 accept; bit 7 a
    flood) and what the controller sends, in any order; made by bumble."""
    from bumble import hci

    def address(n):
        return hci.Address(f"C0:11:22:33:{n >> 8:02X}:{n & 0xFF:02X}", hci.Address.RANDOM_DEVICE_ADDRESS)

    def report(n, data, event_type=0):
        return bytes(hci.HCI_LE_Advertising_Report_Event(reports=[hci.HCI_LE_Advertising_Report_Event.Report(
            event_type=event_type, address_type=1, address=address(n), data=data, rssi=-60)]))

    def completed(handle, n, role=0):
        return bytes(hci.HCI_LE_Connection_Complete_Event(
            status=0, connection_handle=handle, role=role, peer_address_type=1, peer_address=address(n), connection_interval=6,
            peripheral_latency=0, supervision_timeout=200, central_clock_accuracy=0))

    def acl(handle, payload, channel=4):
        pdu = struct.pack("<HH", len(payload), channel) + payload
        return bytes(hci.HCI_AclDataPacket(connection_handle=handle, pb_flag=2, bc_flag=0, data_total_length=len(pdu), data=pdu))

    advert = bytes([2, 1, 6, 3, 3, 0x34, 0x12, 4, 9]) + b"smp"
    write("fuzz-hci-host", "scan-adverts", b"\x00" + b"".join(report(n, advert) for n in range(4)))
    write("fuzz-hci-host", "find-scan-response",
          b"\x01" + report(1, bytes([2, 1, 6, 3, 3, 0x34, 0x12])) + report(1, bytes([4, 9]) + b"smp", event_type=4))
    write("fuzz-hci-host", "flood-connections", b"\x80" + b"".join(completed(0x100 + n, n) for n in range(8)))
    gatt = (acl(0x40, bytes([0x03, 0x00, 0x02])) + acl(0x40, bytes([0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x34, 0x12]))
            + acl(0x40, bytes([0x12, 1, 8, 0, 6, 0, 6, 0, 0, 0, 0xC8, 0]), channel=5) + acl(0x40, bytes([0x0B, 0x01]), channel=6))
    scan_done = bytes(hci.HCI_Command_Complete_Event(num_hci_command_packets=1, command_opcode=0x200C, return_parameters=b"\x00"))
    write("fuzz-hci-host", "connect-gatt", b"\x02" + report(1, bytes([4, 9]) + b"dev") + scan_done + gatt)
    write("fuzz-hci-host", "accept-peripheral", b"\x03" + completed(0x41, 9, role=1) + acl(0x41, bytes([0x02, 0x17, 0x00])))
    out_of_order = (bytes(hci.HCI_Disconnection_Complete_Event(status=0, connection_handle=0x40, reason=0x13))
                    + bytes(hci.HCI_Command_Status_Event(status=0, num_hci_command_packets=1, command_opcode=0x200D))
                    + completed(0x40, 1) + completed(0x40, 1)
                    + bytes(hci.HCI_Number_Of_Completed_Packets_Event(connection_handles=[0x40], num_completed_packets=[9])))
    write("fuzz-hci-host", "events-out-of-order", b"\x02" + out_of_order)


if __name__ == "__main__":
    main()
