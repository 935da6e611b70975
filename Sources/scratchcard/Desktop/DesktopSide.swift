import Dealing
import ScratchCore
import ScratchImage
import ScratchX11

/// A window's side of the desktop, the card's and the doodle's alike: its icons and the
/// launch it answers (startup notification), pictures dropped on it or pasted (Ctrl+V),
/// Ctrl+C, F11 full screen (Escape leaves it first), and the copy handed to a clipboard
/// manager at the end. The loop hands it every key and desktop event first; what it
/// cannot do alone (copy what the window shows, show a picture) it asks of the loop.
final class DesktopSide {
    /// What the loop must do for an event the desktop side took.
    enum Request {
        /// Nothing more: the desktop side did it (or nothing was to be done).
        case handled
        /// Ctrl+C: repaint, then hand the framebuffer to `copy`.
        case copy
        /// A picture was dropped or pasted: show it (`name`: its file, or "pasted").
        case picture(RGBAImage, name: String)
        /// A card file was dropped (card mode): deal from it in place of the card on show.
        case cardFile(LoadedDeck, path: String)
    }

    private let window: X11Window
    /// Whether drops and pastes bring pictures (not in a kiosk: its cards are dealt).
    private let takesPictures: Bool
    /// Whether a dropped card file opens that card (card mode, never the doodle).
    private let takesCardFiles: Bool
    private let verbose: Bool
    private var launchAnnounced = false

    /// Sets the window's icons and the launch's id, before it is mapped, and makes it a
    /// drop target for pictures when it `takesPictures` (and for card files, by their
    /// content, when it also `takesCardFiles`).
    init(window: X11Window, takesPictures: Bool, takesCardFiles: Bool = false, verbose: Bool) {
        self.window = window
        self.takesPictures = takesPictures
        self.takesCardFiles = takesPictures && takesCardFiles
        self.verbose = verbose
        window.setIcons(DesktopFiles.icons())
        if let id = launchStartupID { window.setStartupID(id) }
        let cardFiles = self.takesCardFiles
        if takesPictures { window.acceptDrops { DesktopFiles.firstUsable(in: $0, cardFiles: cardFiles) != nil } }
    }

    /// The first frame is on screen: the launch is complete (once).
    func firstFrameShown() {
        guard !launchAnnounced else { return }
        launchAnnounced = true
        if let id = launchStartupID { window.announceStartupComplete(id: id) }
    }

    /// Ctrl+C, Ctrl+V, F11, Escape while full screen, a drop, a paste: what the loop must
    /// do, or nil when the event is none of these (the loop handles it as before).
    func handle(_ event: WindowEvent) -> Request? {
        switch event {
        case .key(.control("c"), _), .key(.control("C"), _):
            return .copy
        case .key(.control("v"), _), .key(.control("V"), _):
            if takesPictures { window.pasteFromClipboard() }
            return .handled
        case .key(.other("F11"), _):
            window.setFullScreen(!window.isFullScreen)
            return .handled
        case .key(.escape, _) where window.isFullScreen:
            window.setFullScreen(false)
            return .handled
        case .dropped(let paths), .pasted(.files(let paths)):
            guard takesPictures else { return .handled }
            guard let path = DesktopFiles.firstUsable(in: paths, cardFiles: takesCardFiles) else {
                log("nothing opened: no \(takesCardFiles ? "picture or card file" : "picture") among \(paths.prefix(3).joined(separator: ", "))")
                return .handled
            }
            if !DesktopFiles.isPicture(path) {
                do { return .cardFile(try LoadedDeck.load(path: path, asCardFile: true), path: path) } catch {
                    log("\(error)")
                    return .handled
                }
            }
            do { return .picture(try ImageFile.read(path: path), name: path) } catch {
                log("\(error)")
                return .handled
            }
        case .pasted(.picture(let bytes, let type)):
            guard takesPictures, let image = DesktopFiles.decode(bytes, type: type) else { return .handled }
            return .picture(image, name: "pasted")
        case .pasteFailed(let why):
            log("nothing pasted: \(why)")
            return .handled
        default:
            return nil
        }
    }

    /// Ctrl+C: `framebuffer` (what the window shows) as a PNG on the CLIPBOARD.
    func copy(_ framebuffer: Framebuffer) {
        do {
            let png = try PNGFile.encode(framebuffer.rgbaImage())
            if !window.copyToClipboard(png: png) { log("not copied: another program holds the clipboard") }
            else if verbose { log("copied what the window shows to the clipboard (\(png.count) bytes of PNG)") }
        } catch {
            log("not copied: \(error)")
        }
    }

    /// On the way out: a copy is handed to the clipboard manager, if one runs.
    func leave() {
        let handed = window.handClipboardToManager()
        if verbose, handed != .nothingToHand { log("the clipboard at exit: \(handed)") }
    }
}
