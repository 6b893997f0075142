public import ZRCProtocol
/// One change an update made to the picture, in order: pixels moved within it, or drawn anew.
public enum FrameChange: Sendable, Equatable {
    case moved(from: PixelRect, to: PixelRect)
    case drawn(PixelRect)

    /// The pixels the change wrote.
    public var area: PixelRect {
        switch self {
        case .moved(_, let to): to
        case .drawn(let rect): rect
        }
    }
}

/// Pixels of the picture copied from one place in it to another (same size).
public struct PixelMove: Sendable, Equatable {
    public var source: PixelRect
    public var destination: PixelRect

    public init(source: PixelRect, destination: PixelRect) {
        self.source = source
        self.destination = destination
    }
}

/// How a viewer that shows an older version of the picture catches up with the newest one without
/// being sent every pixel that changed: repeat `moves` on its own picture, in order, then paint
/// `repaint` from the newest picture. A scroll then costs a copy on the viewer's side and the
/// newly exposed strip, not the whole area that moved.
///
/// Several updates may be folded into one plan (latest wins), so a move can read pixels an earlier
/// update drew, which the viewer does not have yet (it gets the newest ones only at the end). Such
/// a move is not repeated: its destination is painted instead, and so is that of every later move
/// that reads from there. Every pixel is thus either painted from the newest picture or last
/// written by a move whose source the viewer had right, which makes the result exact.
public struct ChangePlan: Sendable, Equatable {
    public var moves: [PixelMove]
    public var repaint: [PixelRect]

    public init(moves: [PixelMove] = [], repaint: [PixelRect] = []) {
        self.moves = moves
        self.repaint = repaint
    }

    /// The plan for `changes`, oldest first.
    public init(_ changes: [FrameChange]) {
        var moves: [PixelMove] = [], stale: [PixelRect] = []
        for change in changes {
            switch change {
            case .drawn(let rect):
                stale.append(rect)
            case .moved(let from, let to):
                if stale.contains(where: { !$0.intersection(from).isEmpty }) {
                    stale.append(to)
                } else {
                    moves.append(PixelMove(source: from, destination: to))
                }
            }
        }
        self.init(moves: moves, repaint: stale)
    }

    /// Everything the plan writes.
    public var areas: [PixelRect] { moves.map(\.destination) + repaint }
}
