import Foundation
import ScratchCore
import ScratchImage
import ScratchX11

/// The card window on a desktop (not a kiosk): its icon and launch feedback, a picture
/// dropped on it or pasted (Ctrl+V) becoming the prize under fresh foil, Ctrl+C copying
/// what it shows, F11 full screen (Escape leaves it first). Kiosk mode takes none of it
/// but the identity: no drops, no clipboard, its own full screen.
extension WindowApp {
    /// Whether drops and pastes may change the prize: a desktop card, not a kiosk's
    /// (whose cards are dealt and kept by its store).
    var takesPictures: Bool { !options.kiosk && storeKeeper == nil }

    /// Before the window maps: its icons, the launch it answers, drops.
    func joinDesktop() {
        window.setIcons(DesktopFiles.icons())
        if let id = launchStartupID { window.setStartupID(id) }
        if takesPictures { window.acceptDrops { DesktopFiles.firstPicture(in: $0) != nil } }
    }

    /// The first frame is on screen: the launch is complete.
    func firstFrameShown() {
        if let id = launchStartupID { window.announceStartupComplete(id: id) }
    }

    /// Ctrl+C, Ctrl+V, F11, and Escape while full screen; true when the key was one of them.
    func handleDesktopKey(_ event: WindowEvent) -> Bool {
        guard case .key(let key, _) = event else { return false }
        switch key {
        case .control("c"), .control("C"):
            copyWindow()
        case .control("v"), .control("V"):
            if takesPictures { window.pasteFromClipboard() }
        case .other("F11"):
            window.setFullScreen(!window.isFullScreen)
        case .escape where window.isFullScreen:
            window.setFullScreen(false)
        default:
            return false
        }
        return true
    }

    /// A drop or a paste: the picture becomes the prize.
    func receive(_ event: WindowEvent) {
        guard takesPictures else { return }
        switch event {
        case .dropped(let paths), .pasted(.files(let paths)):
            guard let path = DesktopFiles.firstPicture(in: paths) else {
                log("nothing to show: no picture among \(paths.prefix(3).joined(separator: ", "))")
                return
            }
            do { showPrize(try ImageFile.read(path: path), named: path) } catch { log("\(error)") }
        case .pasted(.picture(let bytes, let type)):
            if let image = DesktopFiles.decode(bytes, type: type) { showPrize(image, named: "pasted") }
        case .pasteFailed(let why):
            log("nothing pasted: \(why)")
        default:
            break
        }
    }

    /// `image` becomes the prize of a fresh card under the same cover, nothing scratched;
    /// the card on show ends as `r` would end it (its outcome logged, `new-card` emitted).
    func showPrize(_ image: RGBAImage, named name: String) {
        let images = CardImages(cover: card.images.cover, prize: .image(image))
        let fresh: ScratchCanvas
        do { fresh = try images.canvas(at: canvas.size, layout: canvas.layout, brush: brush) } catch {
            log("\(name): \(error)")
            return
        }
        logOutcome(quitting: false)
        canvas.allPensUp()
        for pen in 0..<options.maxFingers + 1 { scratchUp(pen: pen) }
        canvas = fresh
        card = DealtCard(id: fileStem(name), prize: name, images: images)
        session = CardSession(cardID: card.id, revealAt: options.revealAtPercent / 100, now: monotonicSeconds())
        shownAtWallClock = Date().timeIntervalSince1970
        fingers = Fingers(maximum: options.maxFingers)
        endCelebration()
        if !recording.isEmpty, recording.last != .up { record(.up) }
        exposed = PixelRect(size: canvas.size)
        emit([.newCard(cardID: card.id)])
    }

    /// Ctrl+C: what the window shows, as a PNG on the CLIPBOARD.
    func copyWindow() {
        if surface.canDraw { repaint(paced: false) }
        do {
            let png = try PNGFile.encode(surface.framebuffer.rgbaImage())
            if window.copyToClipboard(png: png) {
                if options.verbose { log("copied the card to the clipboard (\(png.count) bytes of PNG)") }
            } else {
                log("not copied: another program holds the clipboard")
            }
        } catch {
            log("not copied: \(error)")
        }
    }

    /// On the way out: a copy is handed to the clipboard manager, if one runs.
    func leaveDesktop() {
        let handed = window.handClipboardToManager()
        if options.verbose, handed != .nothingToHand { log("clipboard at exit: \(handed)") }
    }
}
