/// How the device treats a request for which it has no free buffer.
public enum BufferOverflowPolicy: String, Sendable, Hashable, CaseIterable {
    /// Drop it silently, as a transport without a free net_buf does.
    case drop
    /// Answer `{"rc": 2}` (`MGMT_ERR_ENOMEM`), as a Zephyr 3.4 `smp_svr` over UDP was seen doing.
    case answerNoMemory
}
