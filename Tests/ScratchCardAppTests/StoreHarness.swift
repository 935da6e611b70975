import CardRules
import Foundation
@preconcurrency import Glibc
import ScratchCore
import ScratchImage
import ScratchStore
import XvfbSupport

/// A deck of solid-colour prizes, each exactly the screen's size (no scaling), some
/// with a stock, beside a solid cover; a store path in the same fresh folder.
struct StockedDeck {
    struct Entry {
        let id: String
        let colour: RGBA
        let stock: Int?
        var weight = 1.0
    }

    static let cover = RGBA(r: 180, g: 180, b: 185)

    let folder: URL
    let entries: [Entry]
    let size: PixelSize
    var deck: String { folder.appendingPathComponent("deck.json").path }
    var cover: String { folder.appendingPathComponent("cover.png").path }
    var store: String { folder.appendingPathComponent("state/kiosk.db").path }
    var log: String { folder.appendingPathComponent("cards.log").path }

    init(_ entries: [Entry], size: PixelSize) throws {
        folder = try App.scratchFolder()
        self.entries = entries
        self.size = size
        _ = try App.solidPNG(Self.cover, size: size, in: folder, name: "cover.png")
        for entry in entries { _ = try App.solidPNG(entry.colour, size: size, in: folder, name: "\(entry.id).png") }
        try writeDeck(entries)
    }

    /// Writes deck.json for these entries (the images must exist already).
    func writeDeck(_ entries: [Entry]) throws {
        let cards = entries.map { e in
            "{\"id\": \"\(e.id)\", \"prize\": \"\(e.id).png\", \"weight\": \(e.weight)" + (e.stock.map { ", \"stock\": \($0)" } ?? "") + "}"
        }
        try Data("{\"cards\": [\(cards.joined(separator: ", "))]}".utf8).write(to: URL(fileURLWithPath: deck))
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }

    func colour(of card: String) -> RGBA? { entries.first { $0.id == card }?.colour }

    /// The kiosk's arguments: full screen at scale 1, this deck and cover, the store, events.
    func kioskArguments(brush: Int = 16, idleReset: Double = 15, abandonReset: Double = 60, extra: [String] = []) -> [String] {
        ["--kiosk", "--scale", "1", "--deck", deck, "--cover", cover, "--store", store, "--events", "--brush", "\(brush)",
         "--idle-reset", "\(idleReset)", "--abandon-reset", "\(abandonReset)"] + extra
    }

    /// What the screen must show for the store's card on show: its saved strokes
    /// replayed through the engine over this deck's images, or the whole prize once
    /// revealed. Nil when the store holds no card on show.
    func expectedImage(store: KioskStore, brush: Double, screen: PixelSize? = nil) throws -> (deal: PendingDeal, image: RGBAImage)? {
        guard let held = try store.pendingDeal(), let prize = colour(of: held.cardID) else { return nil }
        let size = screen ?? self.size
        let coverImage = RGBAImage(size: size, filledWith: Self.cover)
        let prizeImage = RGBAImage(size: size, filledWith: prize)
        let strokes = try StrokeLog(parsing: held.strokes, name: "test")
        let mask = strokes.replay(to: size) { s, previous in Mask(size: s, keeping: previous, cover: RGBAImage(size: s, filledWith: Self.cover)) }
        let canvas = try ScratchCanvas(cover: coverImage, prize: prizeImage, layout: .bgrx, brush: Brush(radius: brush), keeping: mask)
        if held.reveal != nil { _ = canvas.revealAll() }
        let framebuffer = Framebuffer(size: size, layout: .bgrx)
        canvas.composite(PixelRect(size: size), into: framebuffer)
        return (held, framebuffer.rgbaImage())
    }
}

/// Runs `scratchcard` with arguments to its end (no display needed) in `environment`.
func runCommand(_ arguments: [String], environment: [String: String]? = nil, timeout: Double = 30) throws -> (status: Int32, out: String, err: String) {
    var env = environment ?? ProcessInfo.processInfo.environment
    env["DISPLAY"] = env["DISPLAY"] ?? ":9999"
    let app = try RunningApp(arguments, environment: env)
    let status = app.wait(timeout: timeout)
    return (status, app.standardOutput, app.standardError)
}

extension RunningApp {
    /// The last `ready` or `new-card` event: the card on show, as the program said.
    var cardShown: (card: String, deal: String?, resumed: Bool)? {
        guard let event = events.last(where: { ["ready", "new-card"].contains($0["event"] as? String) }) else { return nil }
        return (event["card"] as? String ?? "", event["deal"] as? String, event["resumed"] as? Bool ?? false)
    }
}

/// Pixels that differ between two images of the same size (all of them when sizes differ).
func differingPixels(_ a: RGBAImage, _ b: RGBAImage) -> Int {
    guard a.size == b.size else { return Int.max }
    var n = 0
    for i in stride(from: 0, to: a.bytes.count, by: 4)
    where a.bytes[i] != b.bytes[i] || a.bytes[i + 1] != b.bytes[i + 1] || a.bytes[i + 2] != b.bytes[i + 2] { n += 1 }
    return n
}
