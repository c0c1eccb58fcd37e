import CCBOR

/// Reads CBOR bytes into `CBORValue`s through libcbor's streaming decoder.
///
/// libcbor parses every head and checks that the bytes of each string are present; this type
/// only assembles the items and bounds the work: nesting depth is limited, and no array or map
/// may claim more items than there are bytes left, so nothing is allocated for a lying length.
public struct CBORReader: Sendable {
    /// The deepest nesting of arrays, maps, tags and chunked strings accepted.
    public var maximumDepth: Int

    /// Makes a reader with the given nesting limit.
    public init(maximumDepth: Int = 128) {
        self.maximumDepth = maximumDepth
    }

    /// Decodes exactly one item; bytes after it are an error.
    @inlinable
    public func decode(_ bytes: some Collection<UInt8>) throws(CBORDecodingError) -> CBORValue {
        let (value, consumed) = try decodePrefix(bytes)
        if consumed != bytes.count {
            throw .trailingBytes(count: bytes.count - consumed)
        }
        return value
    }

    /// Decodes the first item and says how many bytes it took.
    ///
    /// Inlinable so that a caller's concrete collection (an array, a slice) reaches libcbor
    /// without going through the generic `Collection` witnesses on every call.
    @inlinable
    public func decodePrefix(
        _ bytes: some Collection<UInt8>
    ) throws(CBORDecodingError) -> (value: CBORValue, consumed: Int) {
        if bytes.isEmpty { throw .empty }
        let result: Result<(CBORValue, Int), CBORDecodingError>
        if let direct = bytes.withContiguousStorageIfAvailable({ run(on: $0) }) {
            result = direct
        } else {
            let copy = Array(bytes)
            result = copy.withUnsafeBufferPointer { run(on: $0) }
        }
        return try result.get()
    }

    @usableFromInline
    func run(on buffer: UnsafeBufferPointer<UInt8>) -> Result<(CBORValue, Int), CBORDecodingError> {
        guard let base = buffer.baseAddress else { return .failure(.empty) }
        let builder = CBORItemBuilder(total: buffer.count, maximumDepth: maximumDepth)
        let context = Unmanaged.passUnretained(builder).toOpaque()
        var callbacks = CBORItemBuilder.callbacks
        var offset = 0
        while builder.result == nil {
            guard offset < buffer.count else { return .failure(.truncated(offset: builder.itemStart)) }
            builder.headOffset = offset
            if builder.stack.isEmpty { builder.itemStart = offset }
            let decoded = cbor_stream_decode(base + offset, buffer.count - offset, &callbacks, context)
            switch decoded.status {
            case CBOR_DECODER_FINISHED:
                offset += decoded.read
            case CBOR_DECODER_NEDATA:
                return .failure(.truncated(offset: offset))
            default:
                // libcbor 0.8 refuses the one-byte tag heads 0xc6...0xd4 (tags 6-20) and the
                // unassigned simple values (0xe0...0xf3, 0xf8 xx); RFC 8949 makes them
                // well-formed, so those heads are taken here.
                let head = buffer[offset]
                if head >= 0xc6 && head <= 0xd4 {
                    builder.push(.tag(UInt64(head - 0xc0)))
                    offset += 1
                } else if let (simple, length) = unassignedSimple(at: offset, in: buffer) {
                    builder.emit(.simple(simple))
                    offset += length
                } else if head == 0xf8 && offset + 1 == buffer.count {
                    return .failure(.truncated(offset: offset))
                } else {
                    return .failure(.malformed(offset: offset, reason: headDescription(head)))
                }
            }
            if let error = builder.error { return .failure(error) }
        }
        return .success((builder.result!, offset))
    }

    private func unassignedSimple(at offset: Int, in buffer: UnsafeBufferPointer<UInt8>) -> (UInt8, Int)? {
        let head = buffer[offset]
        if head >= 0xe0 && head <= 0xf3 { return (head - 0xe0, 1) }
        if head == 0xf8, offset + 1 < buffer.count, buffer[offset + 1] >= 32 {
            return (buffer[offset + 1], 2)
        }
        return nil
    }

    private func headDescription(_ head: UInt8) -> String {
        let major = head >> 5
        let info = head & 0x1f
        if info >= 28 && info <= 30 { return "reserved additional information \(info) in head 0x\(String(head, radix: 16))" }
        if head == 0xf8 { return "simple value below 32 in two-byte form" }
        if head == 0xff { return "break (0xff) outside an indefinite-length item" }
        if info == 31 && (major == 0 || major == 1 || major == 6) {
            return "indefinite length not allowed for major type \(major)"
        }
        return "invalid head 0x\(String(head, radix: 16))"
    }
}

extension CBORValue {
    /// Decodes exactly one CBOR item from `bytes` (nesting limited to 128 levels).
    public init(cbor bytes: some Collection<UInt8>) throws(CBORDecodingError) {
        self = try CBORReader().decode(bytes)
    }
}

/// Assembles items from libcbor's streaming callbacks.
private final class CBORItemBuilder {
    /// Elements of an open array or map. A class, so that appending never copies what came
    /// before (an array held in the enum payload is copied on every append: quadratic time).
    final class Collected<Element> {
        var elements: [Element] = []
        init(capacity: Int = 0) { elements.reserveCapacity(capacity) }
    }

    enum Frame {
        case array(expected: Int?, items: Collected<CBORValue>)
        case map(expected: Int?, entries: Collected<(key: CBORValue, value: CBORValue)>, key: CBORValue?)
        case tag(UInt64)
        case byteChunks([UInt8])
        case textChunks([UInt8], start: Int)
    }

    let total: Int
    let maximumDepth: Int
    var stack: [Frame] = []
    var result: CBORValue?
    var error: CBORDecodingError?
    var headOffset = 0
    var itemStart = 0

    init(total: Int, maximumDepth: Int) {
        self.total = total
        self.maximumDepth = maximumDepth
    }

    /// Bytes after the current head's first byte: an upper bound on what any length may claim.
    var bytesAfterHead: Int { total - headOffset - 1 }

    func fail(_ e: CBORDecodingError) {
        if error == nil { error = e }
    }

    func push(_ frame: Frame) {
        guard stack.count < maximumDepth else {
            fail(.nestingTooDeep(limit: maximumDepth))
            return
        }
        stack.append(frame)
    }

    /// Hands a finished item to the innermost open container.
    func emit(_ value: CBORValue) {
        guard error == nil else { return }
        var value = value
        while true {
            guard let top = stack.popLast() else {
                result = value
                return
            }
            switch top {
            case .array(let expected, let items):
                items.elements.append(value)
                if let expected, items.elements.count == expected {
                    value = .array(items.elements)
                    continue
                }
                stack.append(.array(expected: expected, items: items))
                return
            case .map(let expected, let entries, let key):
                guard let key else {
                    stack.append(.map(expected: expected, entries: entries, key: value))
                    return
                }
                entries.elements.append((key: key, value: value))
                if let expected, entries.elements.count == expected {
                    value = .map(entries.elements)
                    continue
                }
                stack.append(.map(expected: expected, entries: entries, key: nil))
                return
            case .tag(let tag):
                value = .tagged(tag, value)
                continue
            case .byteChunks, .textChunks:
                fail(.malformed(offset: headOffset, reason: "an indefinite-length string holds a chunk of another type"))
                return
            }
        }
    }

    func string(_ data: UnsafePointer<UInt8>?, _ length: Int, isText: Bool) {
        // Read in place: a text string is validated straight from libcbor's buffer (a short key
        // then needs no allocation at all); only a byte string is copied, into its value.
        let bytes = UnsafeBufferPointer(start: length == 0 ? nil : data, count: length)
        switch stack.last {
        case .byteChunks(var chunks) where !isText:
            stack.removeLast()
            chunks.append(contentsOf: bytes)
            stack.append(.byteChunks(chunks))
        case .textChunks(var chunks, let start) where isText:
            stack.removeLast()
            chunks.append(contentsOf: bytes)
            stack.append(.textChunks(chunks, start: start))
        default:
            if isText {
                guard let text = String(validating: bytes, as: UTF8.self) else {
                    fail(.invalidUTF8(offset: headOffset))
                    return
                }
                emit(.text(text))
            } else {
                emit(.bytes(Array(bytes)))
            }
        }
    }

    func collectionStart(_ size: Int, isMap: Bool) {
        let available = bytesAfterHead
        // libcbor hands the count over as size_t, imported as Int: claims of 2^63 and more arrive negative.
        let claimed = UInt64(UInt(bitPattern: size))
        let needed = isMap ? (claimed > UInt64(Int.max) / 2 ? UInt64.max : claimed * 2) : claimed
        guard needed <= UInt64(available) else {
            fail(.lengthExceedsInput(offset: headOffset, claimed: claimed, available: available))
            return
        }
        if size == 0 {
            emit(isMap ? .map([]) : .array([]))
            return
        }
        if isMap {
            push(.map(expected: size, entries: Collected(capacity: size), key: nil))
        } else {
            push(.array(expected: size, items: Collected(capacity: size)))
        }
    }

    func indefiniteBreak() {
        guard let top = stack.popLast() else {
            fail(.malformed(offset: headOffset, reason: "break (0xff) outside an indefinite-length item"))
            return
        }
        switch top {
        case .array(nil, let items):
            emit(.array(items.elements))
        case .map(nil, let entries, nil):
            emit(.map(entries.elements))
        case .byteChunks(let chunks):
            emit(.bytes(chunks))
        case .textChunks(let chunks, let start):
            guard let text = String(validating: chunks, as: UTF8.self) else {
                fail(.invalidUTF8(offset: start))
                return
            }
            emit(.text(text))
        case .map(nil, _, .some):
            fail(.malformed(offset: headOffset, reason: "map ends after a key without its value"))
        default:
            fail(.malformed(offset: headOffset, reason: "break (0xff) inside a definite-length item"))
        }
    }

    static var callbacks: cbor_callbacks {
        cbor_callbacks(
            uint8: { builder($0).emit(.unsigned(UInt64($1))) },
            uint16: { builder($0).emit(.unsigned(UInt64($1))) },
            uint32: { builder($0).emit(.unsigned(UInt64($1))) },
            uint64: { builder($0).emit(.unsigned($1)) },
            negint64: { builder($0).emit(.negative($1)) },
            negint32: { builder($0).emit(.negative(UInt64($1))) },
            negint16: { builder($0).emit(.negative(UInt64($1))) },
            negint8: { builder($0).emit(.negative(UInt64($1))) },
            byte_string_start: { builder($0).push(.byteChunks([])) },
            byte_string: { builder($0).string($1, $2, isText: false) },
            string: { builder($0).string($1, $2, isText: true) },
            string_start: { ctx in
                let b = builder(ctx)
                b.push(.textChunks([], start: b.headOffset))
            },
            indef_array_start: { builder($0).push(.array(expected: nil, items: Collected())) },
            array_start: { builder($0).collectionStart($1, isMap: false) },
            indef_map_start: { builder($0).push(.map(expected: nil, entries: Collected(), key: nil)) },
            map_start: { builder($0).collectionStart($1, isMap: true) },
            tag: { builder($0).push(.tag($1)) },
            float2: { builder($0).emit(.float(Double($1))) },
            float4: { builder($0).emit(.float(Double($1))) },
            float8: { builder($0).emit(.float($1)) },
            undefined: { builder($0).emit(.undefined) },
            null: { builder($0).emit(.null) },
            boolean: { builder($0).emit(.bool($1)) },
            indef_break: { builder($0).indefiniteBreak() }
        )
    }
}

/// The builder behind libcbor's context pointer.
private func builder(_ context: UnsafeMutableRawPointer?) -> CBORItemBuilder {
    Unmanaged<CBORItemBuilder>.fromOpaque(context!).takeUnretainedValue()
}
