#!/usr/bin/env python3
"""An SMP GATT peripheral on Google's bumble Bluetooth stack, for swift-mcumgr's HCI host tests.

It attaches to one of bumble's virtual controllers (e.g. tcp-client:127.0.0.1:9001), advertises
the SMP service UUID and a name, and exposes the SMP characteristic (write without response +
notify). Each SMP request reassembled from the writes (by the SMP header's length) is forwarded
to mcumgr-sim over UDP; each UDP answer goes back as notifications cut to ATT_MTU - 3.

It prints one line per event on standard output ("ready", "connected ...", "mtu N",
"param-update accepted", "dropped-link after N bytes", "disconnected ...").
"""
import argparse
import asyncio
import socket
import sys

from bumble.core import AdvertisingData, UUID
from bumble.device import Device
from bumble.gatt import (
    GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR,
    Characteristic,
    CharacteristicValue,
    Descriptor,
    Service,
)
from bumble.hci import Address
from bumble.transport import open_transport

SMP_SERVICE = UUID('8D53DC1D-1DB7-4CD3-868B-8A527460AA84')
SMP_CHARACTERISTIC = UUID('DA2E7828-FBCE-4E01-AE9E-261174997C48')


def say(text):
    print(text, flush=True)


class Bridge:
    """One connection's reassembly, UDP socket to the simulator and notification sender."""

    def __init__(self, peripheral, connection):
        self.peripheral = peripheral
        self.connection = connection
        self.buffer = bytearray()
        self.answers = asyncio.Queue()
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.setblocking(False)
        self.socket.connect(peripheral.simulator)
        loop = asyncio.get_running_loop()
        loop.add_reader(self.socket.fileno(), self.on_datagram)
        self.sender = loop.create_task(self.send_answers())

    def on_write(self, value):
        self.buffer += value
        while len(self.buffer) >= 8:
            needed = 8 + int.from_bytes(self.buffer[2:4], 'big')
            if len(self.buffer) < needed:
                break
            packet, self.buffer = bytes(self.buffer[:needed]), self.buffer[needed:]
            self.socket.send(packet)

    def on_datagram(self):
        try:
            while True:
                self.answers.put_nowait(self.socket.recv(65536))
        except BlockingIOError:
            pass

    async def send_answers(self):
        while True:
            answer = await self.answers.get()
            unit = max(20, self.connection.att_mtu - 3)
            for offset in range(0, len(answer), unit):
                await self.peripheral.device.notify_subscriber(
                    self.connection, self.peripheral.characteristic, answer[offset:offset + unit], force=True)

    def close(self):
        asyncio.get_running_loop().remove_reader(self.socket.fileno())
        self.sender.cancel()
        self.socket.close()


class Peripheral:
    def __init__(self, args, device):
        self.args = args
        self.device = device
        host, port = args.sim.rsplit(':', 1)
        self.simulator = (host, int(port))
        self.bridges = {}
        self.written = 0
        self.dropped = False
        permissions = Characteristic.READABLE | Characteristic.WRITEABLE
        descriptors = []
        if args.require_authentication:
            descriptors = [Descriptor(
                GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR,
                Descriptor.READABLE | Descriptor.WRITEABLE | Descriptor.WRITE_REQUIRES_AUTHENTICATION,
                bytes(2))]
        self.characteristic = Characteristic(
            SMP_CHARACTERISTIC,
            Characteristic.Properties.WRITE_WITHOUT_RESPONSE | Characteristic.Properties.NOTIFY,
            permissions,
            CharacteristicValue(read=lambda _: b'', write=self.on_write),
            descriptors=descriptors)
        device.add_service(Service(SMP_SERVICE, [self.characteristic]))
        device.on('connection', self.on_connection)

    def on_connection(self, connection):
        say(f'connected {connection.peer_address}')
        self.bridges[connection.handle] = Bridge(self, connection)
        connection.on('disconnection', lambda reason: self.on_disconnection(connection, reason))
        connection.on('connection_att_mtu_update', lambda: say(f'mtu {connection.att_mtu}'))
        if self.args.param_update:
            asyncio.get_running_loop().create_task(self.update_parameters(connection))

    async def update_parameters(self, connection):
        await asyncio.sleep(0.2)
        try:
            await connection.update_parameters(15, 30, 0, 4000, use_l2cap=True)
            say('param-update accepted')
        except Exception as error:  # noqa: BLE001 - report whatever bumble raises
            say(f'param-update failed {error!r}')

    def on_disconnection(self, connection, reason):
        say(f'disconnected {reason} after {self.written} bytes')
        bridge = self.bridges.pop(connection.handle, None)
        if bridge:
            bridge.close()

    def on_write(self, connection, value):
        bridge = self.bridges.get(connection.handle)
        if bridge is None:
            return
        self.written += len(value)
        if self.args.drop_after_bytes and not self.dropped and self.written >= self.args.drop_after_bytes:
            self.dropped = True
            say(f'dropped-link after {self.written} bytes')
            # As a device does, forget the partial request and ignore whatever still arrives on
            # this link before the disconnection completes.
            self.bridges.pop(connection.handle).close()
            asyncio.get_running_loop().create_task(connection.disconnect())
            return
        bridge.on_write(value)


async def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--transport', required=True, help='bumble HCI transport, e.g. tcp-client:127.0.0.1:9001')
    parser.add_argument('--sim', required=True, help='mcumgr-sim UDP address HOST:PORT')
    parser.add_argument('--name', default='smp-sim')
    parser.add_argument('--address', default='F0:F1:F2:F3:F4:F5')
    parser.add_argument('--drop-after-bytes', type=int, default=0, help='disconnect once, after this many bytes were written')
    parser.add_argument('--param-update', action='store_true', help='ask for other connection parameters over L2CAP')
    parser.add_argument('--require-authentication', action='store_true', help='the CCCD needs an authenticated link')
    args = parser.parse_args()

    deadline = asyncio.get_running_loop().time() + 20
    while True:
        try:
            transport = await open_transport(args.transport)
            break
        except Exception:  # noqa: BLE001 - the controllers may not listen yet
            if asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(0.1)

    async with transport as (source, sink):
        device = Device.with_hci(args.name, Address(args.address), source, sink)
        Peripheral(args, device)
        await device.power_on()
        advertising = bytes(AdvertisingData([
            (AdvertisingData.FLAGS, bytes([0x06])),
            (AdvertisingData.COMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS, bytes(SMP_SERVICE)),
            (AdvertisingData.COMPLETE_LOCAL_NAME, args.name.encode()),
        ]))
        await device.start_advertising(
            advertising_data=advertising, auto_restart=True, advertising_interval_min=50, advertising_interval_max=50)
        say('ready')
        stdin_closed = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().add_reader(
            sys.stdin.fileno(), lambda: stdin_closed.done() or (sys.stdin.buffer.read1(1024) or stdin_closed.set_result(None)))
        await stdin_closed


if __name__ == '__main__':
    asyncio.run(main())
