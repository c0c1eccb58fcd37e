import GATT

/// What Zephyr's `smp_bt` does with each write to the SMP characteristic: with
/// `CONFIG_MCUMGR_TRANSPORT_BT_REASSEMBLY` it collects fragments by the SMP header's length into
/// one `buf_size` buffer (`smp_reassembly_collect`); without, each write is one whole packet.
///
/// Errors are the ATT codes Zephyr returns (smp-reference §5.1): a first fragment shorter than a
/// header, a packet larger than the buffer, or a fragment beyond the declared length is "Value
/// Not Allowed" and drops what was collected; a write larger than the buffer without reassembly
/// is "Insufficient Resources". Only a Write Request carries the error back; a Write Command's is lost.
struct SMPWriteReassembler {
    /// What one write came to.
    enum Outcome: Equatable {
        /// More fragments are expected.
        case incomplete
        /// A whole SMP packet.
        case packet([UInt8])
        /// The write was refused with this ATT error; `reason` is for the log.
        case refused(ATTErrorCode, reason: String)
    }

    /// The device's SMP buffer (`buf_size`): the largest packet collected.
    let bufferSize: Int
    /// Whether fragments are collected (`CONFIG_MCUMGR_TRANSPORT_BT_REASSEMBLY`).
    let reassembles: Bool
    private var collected: [UInt8] = []
    private var expected: Int?

    init(bufferSize: Int, reassembles: Bool) {
        self.bufferSize = bufferSize
        self.reassembles = reassembles
    }

    /// Bytes held for a packet not yet complete.
    var pendingByteCount: Int { collected.count }

    /// Takes one written value.
    mutating func collect(_ fragment: [UInt8]) -> Outcome {
        guard reassembles else {
            guard fragment.count <= bufferSize else {
                return .refused(.insufficientResources, reason: "a \(fragment.count)-byte write exceeds the \(bufferSize)-byte SMP buffer")
            }
            return .packet(fragment)
        }
        if let expected {
            guard collected.count + fragment.count <= expected else {
                let had = collected.count
                drop()
                return .refused(.valueNotAllowed, reason: "a fragment overshoots the packet's \(expected) bytes (\(had) held); dropped")
            }
            collected += fragment
        } else {
            guard fragment.count >= 8 else {
                return .refused(.valueNotAllowed, reason: "a first fragment of \(fragment.count) bytes holds no SMP header")
            }
            let total = 8 + (Int(fragment[2]) << 8 | Int(fragment[3]))
            guard fragment.count <= bufferSize, total <= bufferSize else {
                return .refused(.valueNotAllowed, reason: "a \(total)-byte packet does not fit the \(bufferSize)-byte SMP buffer")
            }
            guard fragment.count <= total else {
                return .refused(.valueNotAllowed, reason: "a first fragment of \(fragment.count) bytes is longer than its \(total)-byte packet")
            }
            expected = total
            collected = fragment
        }
        guard collected.count == expected else { return .incomplete }
        defer { drop() }
        return .packet(collected)
    }

    /// Drops a partial packet (the CCCD was disabled, or the connection ended).
    mutating func drop() {
        collected = []
        expected = nil
    }
}
