import Foundation
import Testing
import CardArt
import ScratchCore
import ScratchImage

/// The built-in zone ticket: foil only on the zones, the same artwork elsewhere.
struct TicketTests {
    let size = PixelSize(width: 960, height: 600)

    var zones: [ZoneOutline] {
        var zones: [ZoneOutline] = []
        for r in 0..<3 {
            for c in 0..<3 {
                zones.append(ZoneOutline(x: 60 + Double(c) * 285, y: 165 + Double(r) * 140, width: 270, height: 125,
                                         shape: r == 1 && c == 1 ? .ellipse : .rectangle))
            }
        }
        return zones
    }

    @Test("cover and prize differ only inside the zones; the header carries the cover text")
    func coverDiffersOnlyInZones() throws {
        let (cover, prize) = CardArt.ticket(size: size, zones: zones, header: "PICK 3")
        let other = CardArt.ticket(size: size, zones: zones, header: "Scratch 3 boxes, match 3")
        var outside = 0, inside = 0, insideCount = 0
        for y in 0..<size.height {
            for x in 0..<size.width {
                let cx = Double(x) + 0.5, cy = Double(y) + 0.5
                // With a pixel of slack around each zone (anti-aliased edges).
                let near = zones.contains { cx > $0.x - 2 && cx < $0.x + $0.width + 2 && cy > $0.y - 2 && cy < $0.y + $0.height + 2 }
                let deep = zones.contains { cx > $0.x + 3 && cx < $0.x + $0.width - 3 && cy > $0.y + 3 && cy < $0.y + $0.height - 3 && $0.shape == .rectangle }
                if !near && cover[x, y] != prize[x, y] { outside += 1 }
                if deep { insideCount += 1; if cover[x, y] != prize[x, y] { inside += 1 } }
            }
        }
        #expect(outside == 0)
        #expect(inside == insideCount)
        // The header's words: the band differs between two texts, the zones do not.
        var headerDiffers = 0
        for y in 20..<140 { for x in 20..<940 where cover[x, y] != other.cover[x, y] { headerDiffers += 1 } }
        #expect(headerDiffers > 500)
        if let path = ProcessInfo.processInfo.environment["TICKET_PNG"] { try PNGFile.write(cover, to: path) }
    }

    @Test("a zone's symbol: text drawn on the well, a decoy dimmed, an image scaled to fit")
    func symbols() {
        let zone = PixelSize(width: 270, height: 125)
        let text = CardArt.zoneSymbol(text: "☕ WIN", colour: RGBA(r: 200, g: 0, b: 0), image: nil, size: zone, dimmed: false)
        let reds = (0..<zone.height).reduce(0) { n, y in n + (0..<zone.width).filter { text[$0, y].r > 150 && text[$0, y].g < 80 }.count }
        #expect(reds > 300)
        #expect(text[2, 2] == RGBA(r: 255, g: 253, b: 246))
        let decoy = CardArt.zoneSymbol(text: "☕ WIN", colour: nil, image: nil, size: zone, dimmed: true)
        #expect(decoy[2, 2].r < 200)
        let picture = RGBAImage(size: PixelSize(width: 10, height: 10), filledWith: RGBA(r: 0, g: 0, b: 255))
        let fitted = CardArt.zoneSymbol(text: nil, colour: nil, image: picture, size: zone, dimmed: false)
        #expect(fitted[135, 62] == RGBA(r: 0, g: 0, b: 255))
        #expect(fitted[10, 62] == RGBA(r: 255, g: 253, b: 246))
    }
}
