import ScratchCore
import ScratchX11
import CardRules

/// A ticket's keys: Tab and Shift+Tab (and the arrow keys) move a focus ring between
/// its zones, Space and Enter open the focused one. It holds which zone has the ring,
/// and draws the ring over the card (in the artwork around the zone, never in it).
struct ZoneFocus {
    /// What a key did.
    enum Action: Equatable {
        /// The ring moved: this area is to be composited again (where it was and is).
        case moved(PixelRect)
        /// Open this zone.
        case open(Int)
    }

    /// The zone with the ring; nil until a key asks for one.
    private(set) var zone: Int?

    /// A new card: no ring.
    mutating func reset() { zone = nil }

    /// What `key` does on a ticket whose rules are `ticket` and whose zones have these
    /// pixel `bounds`; nil for a key that is not a ticket's.
    mutating func handle(_ key: Key, _ modifiers: KeyModifiers, ticket: ZoneTicket, bounds: [PixelRect],
                         canvas: PixelSize, scale: Double) -> Action? {
        let count = ticket.zoneCount
        func move(to next: Int) -> Action {
            var area = zone.map { Self.ringRect(around: bounds[$0], canvas: canvas, scale: scale) } ?? .empty
            zone = next
            area.formUnion(Self.ringRect(around: bounds[next], canvas: canvas, scale: scale))
            return .moved(area)
        }
        /// The next zone from `from` (going by `step`) that a key may still open.
        func openable(from: Int, step: Int) -> Int? {
            (0..<count).lazy.map { ((from + $0 * step) % count + count) % count }.first { ticket.isScratchable($0) }
        }
        switch key {
        case .space, .enter:
            guard let zone else { return move(to: openable(from: 0, step: 1) ?? 0) }
            return .open(zone)
        case .other("Tab"), .other("ISO_Left_Tab"):
            let step = modifiers.contains(.shift) || key == .other("ISO_Left_Tab") ? -1 : 1
            let from = zone.map { ($0 + step + count) % count } ?? (step > 0 ? 0 : count - 1)
            return move(to: openable(from: from, step: step) ?? from)
        case .other("Right"), .other("Left"), .other("Up"), .other("Down"):
            guard let zone else { return move(to: 0) }
            return move(to: Self.neighbour(of: zone, in: bounds, towards: key.keysymName) ?? zone)
        default:
            return nil
        }
    }

    /// The nearest zone whose centre lies in `direction` ("Left", "Right", "Up", "Down"),
    /// a zone straight ahead before one off to the side.
    static func neighbour(of zone: Int, in bounds: [PixelRect], towards direction: String) -> Int? {
        func centre(_ r: PixelRect) -> (x: Double, y: Double) { (Double(r.x) + Double(r.width) / 2, Double(r.y) + Double(r.height) / 2) }
        let here = centre(bounds[zone])
        var best: (zone: Int, cost: Double)?
        for (i, r) in bounds.enumerated() where i != zone && !r.isEmpty {
            let c = centre(r), dx = c.x - here.x, dy = c.y - here.y
            let (ahead, aside): (Double, Double) = switch direction {
            case "Right": (dx, dy)
            case "Left": (-dx, dy)
            case "Down": (dy, dx)
            default: (-dy, dx)
            }
            guard ahead > 1 else { continue }
            let cost = ahead + 2 * Swift.abs(aside)
            if best == nil || cost < best!.cost { best = (i, cost) }
        }
        return best?.zone
    }

    /// The ring's rectangle around a zone: a band 3 points wide, 4 points outside it.
    static func ringRect(around zone: PixelRect, canvas: PixelSize, scale: Double) -> PixelRect {
        guard !zone.isEmpty else { return .empty }
        let pad = Swift.max(4, Int((4 * scale).rounded())) + Swift.max(2, Int((2 * scale).rounded()))
        return PixelRect(x: zone.x - pad, y: zone.y - pad, width: zone.width + 2 * pad, height: zone.height + 2 * pad)
            .intersection(PixelRect(size: canvas))
    }

    /// Draws the ring (blue, #1565C0) into `framebuffer` when `area`, what the repaint
    /// puts, meets it; returns what it drew.
    func draw(into framebuffer: Framebuffer, over area: PixelRect, bounds: [PixelRect], canvas: PixelSize, scale: Double) -> PixelRect {
        guard let zone, bounds.indices.contains(zone) else { return .empty }
        let ring = Self.ringRect(around: bounds[zone], canvas: canvas, scale: scale)
            .intersection(PixelRect(size: framebuffer.size))
        guard !ring.isEmpty, !ring.intersection(area).isEmpty else { return .empty }
        let thickness = Swift.max(3, Int((3 * scale).rounded()))
        var bytes: [UInt8] = [0, 0, 0, 0]
        bytes[framebuffer.layout.redOffset] = 0x15
        bytes[framebuffer.layout.greenOffset] = 0x65
        bytes[framebuffer.layout.blueOffset] = 0xC0
        bytes[framebuffer.layout.padOffset] = 0xFF
        let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        for y in ring.y..<ring.maxY {
            let edgeRow = y < ring.y + thickness || y >= ring.maxY - thickness
            let row = framebuffer.baseAddress + y * framebuffer.bytesPerRow
            for x in ring.x..<ring.maxX where edgeRow || x < ring.x + thickness || x >= ring.maxX - thickness {
                row.storeBytes(of: word, toByteOffset: x * 4, as: UInt32.self)
            }
        }
        return ring
    }
}
