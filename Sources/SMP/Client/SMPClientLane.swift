/// An actor with nothing in it, whose default executor an ``SMPClient`` runs on when its
/// transport offers none (an actor that may adopt another executor names its own explicitly).
final actor SMPClientLane {}
