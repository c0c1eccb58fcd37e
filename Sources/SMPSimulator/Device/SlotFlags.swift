/// The four state flags of one slot in `image list`.
struct SlotFlags: Sendable, Hashable {
    var pending = false
    var confirmed = false
    var active = false
    var permanent = false
}
