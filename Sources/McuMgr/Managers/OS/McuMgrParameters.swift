import SMP

/// The device's SMP buffers (OS command 6), by the name Nordic's libraries use: `buf_size`
/// (largest request, header included) and `buf_count` (keep at most `buf_count − 1` requests in flight).
public typealias McuMgrParameters = SMPDeviceBuffers
