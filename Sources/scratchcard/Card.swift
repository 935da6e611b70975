import Dispatch
import Foundation
import ScratchCore
import ScratchImage
import ScratchSound

/// The two images of a card, as loaded: the built-in ones unless files are given.
struct CardImages: Sendable {
    var cover: RGBAImage
    var prize: RGBAImage

    static func load(cover: String?, prize: String?) throws(ImageError) -> CardImages {
        // Both decodes at once, the prize's on another thread: at 4K each is mostly
        // zlib's inflate (or libjpeg's IDCT), and the machine has more than one core. Called
        // at start-up, before the loop runs, and on the card maker's worker, never by the loop.
        let prizeJob = Job { () throws(ImageError) in try loadImage(prize, builtIn: "prize.png") }
        let coverImage = Result { () throws(ImageError) in try loadImage(cover, builtIn: "cover.png") }
        let prizeImage = prizeJob.result()
        return CardImages(cover: try coverImage.get(), prize: try prizeImage.get())
    }

    /// The file at `path`, else the built-in image of that name from the data folder.
    private static func loadImage(_ path: String?, builtIn: String) throws(ImageError) -> RGBAImage {
        if let path { return try ImageFile.read(path: path) }
        let file: String
        do { file = try DataFolder.current.get().file(builtIn) } catch { throw error.imageError }
        do { return try ImageFile.read(path: file) } catch {
            throw ImageError(path: error.path, problem: error.problem + " (the program's data is damaged: reinstall scratchcard)")
        }
    }

    /// Both images scaled to fill `size`, centred (a no-op at the same size). One after
    /// the other, on the caller's thread: the window's loop calls this on a resize, and a
    /// loop waiting on the shared thread pool could wait behind the card maker's work
    /// (with the prize scaled on the pool, a resize during a deal took 6x as long under
    /// ThreadSanitizer).
    func filling(_ size: PixelSize) -> CardImages {
        CardImages(cover: cover.size == size ? cover : cover.scaledToFill(size),
                   prize: prize.size == size ? prize : prize.scaledToFill(size))
    }
}

/// Deals cards: at random by weight from a deck, or always the one card of the options.
/// Sendable (plain values) so that the card maker's worker can deal.
struct Dealer: Sendable {
    let deck: Deck?
    let cover: String?
    let prize: String?

    init(options: WindowOptions) throws(DeckError) {
        deck = try options.deck.map { path throws(DeckError) in try Deck.load(path: path) }
        cover = options.cover
        prize = options.prize
        if let deck, let path = options.deck { try Self.checkSounds(of: deck, path: path) }
    }

    /// The most sound files a deck may name (each is decoded at load to check it).
    static let maximumSoundFiles = 32

    /// Every sound file the deck names is decoded once, at load: a bad one ends the
    /// program (exit 2) naming the deck, the card and the file, before any window.
    static func checkSounds(of deck: Deck, path: String) throws(DeckError) {
        var checked = Set<String>()
        for (index, card) in deck.cards.enumerated() {
            guard case .file(let file) = card.sound, !checked.contains(file) else { continue }
            guard checked.count < maximumSoundFiles else {
                throw DeckError(path: path, message: "more than \(maximumSoundFiles) different sound files")
            }
            checked.insert(file)
            do { _ = try WAVFile.load(path: file) } catch {
                throw DeckError(path: path, message: "cards[\(index)] (\"\(card.id)\"): sound \(error)")
            }
        }
    }

    /// The next card's id and images. A deck card without a cover of its own gets the
    /// `--cover` one (or the built-in foil).
    func deal() throws(ImageError) -> DealtCard {
        guard let deck else {
            let id = prize.map { fileStem($0) } ?? "built-in"
            return DealtCard(id: id, prize: prize ?? "built-in", images: try CardImages.load(cover: cover, prize: prize))
        }
        let card = deck.draw()
        return DealtCard(id: card.id, prize: card.prize, images: try CardImages.load(cover: card.cover ?? cover, prize: card.prize),
                         revealSound: Self.revealSound(card.sound), celebrate: card.celebrate)
    }

    /// The clip a card's reveal plays: the chime, none, or its WAV file (checked at load;
    /// should it have changed since and no longer decode, the chime).
    static func revealSound(_ sound: DeckSound) -> SoundClip? {
        switch sound {
        case .chime: return .chime
        case .none: return nil
        case .file(let path): return (try? WAVFile.load(path: path)) ?? .chime
        }
    }
}

/// A card as dealt: its id, where its prize came from, its images as loaded, what its
/// reveal sounds like (nil: nothing) and whether it bursts into sparks.
struct DealtCard: Sendable {
    let id: String
    let prize: String
    let images: CardImages
    var revealSound: SoundClip? = .chime
    var celebrate = true
}

/// A file's name without its folder and extension.
func fileStem(_ path: String) -> String {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
    return String(name[..<dot])
}

/// Work started on a thread of its own at once; `result()` waits for it. The thread ends
/// with the work, at start-up: a worker of the shared pool would linger and end seconds
/// later, while the card sits idle.
private final class Job<Value: Sendable, Failure: Error>: @unchecked Sendable {
    // Written once by the worker before it signals, read only after the wait.
    private var outcome: Result<Value, Failure>?
    private let done = DispatchSemaphore(value: 0)

    init(_ work: @escaping @Sendable () throws(Failure) -> Value) {
        detachThread {
            self.outcome = Result(catching: work)
            self.done.signal()
        }
    }

    func result() -> Result<Value, Failure> {
        done.wait()
        return outcome!
    }
}
