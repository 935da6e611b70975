@preconcurrency import Glibc
import CardFile
import ScratchAssets
import ScratchCore
import ScratchImage
import ScratchX11

/// The launch this process answers (startup notification): `DESKTOP_STARTUP_ID`, read and
/// unset once, first thing when a window is set up (before any thread that might read the
/// environment starts).
let launchStartupID: String? = StartupNotification.takeStartupID()

/// The files the desktop hands the program (dropped, pasted) and the icon it shows there.
enum DesktopFiles {
    /// The first of `paths` that is a picture the program reads (PNG, JPEG or WebP, by its
    /// first bytes, not its name), or nil.
    static func firstPicture(in paths: [String]) -> String? {
        paths.first(where: isPicture)
    }

    /// The first of `paths` that is a picture or, with `cardFiles`, a card file (told by
    /// its first bytes, as CardFile checks, not by its name), or nil.
    static func firstUsable(in paths: [String], cardFiles: Bool) -> String? {
        paths.first { isPicture($0) || (cardFiles && CardFile.looksLikeCardFile(path: $0)) }
    }

    /// Whether the file starts as a PNG, a JPEG or a WebP file does.
    static func isPicture(_ path: String) -> Bool {
        guard let file = fopen(path, "rb") else { return false }
        defer { fclose(file) }
        var head = [UInt8](repeating: 0, count: 12)
        guard fread(&head, 1, 12, file) == 12 else { return false }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return true }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return true }
        return head.starts(with: Array("RIFF".utf8)) && Array(head[8..<12]) == Array("WEBP".utf8)
    }

    /// The window icon's sizes (`_NET_WM_ICON`), as Assets/icons draws them.
    static let iconSizes = [16, 24, 32, 48, 64, 128]

    /// The drawn icons, from the installed hicolor theme beside the binary
    /// (`BINDIR/../share/icons/hicolor/NxN/apps/scratchcard.png`), else from a development
    /// build's resource bundle (`icons/scratchcard-N.png`). A size found in neither is
    /// left out: the window is no less usable without its icon.
    static func icons() -> [RGBAImage] {
        let bin = DataFolder.executablePath().split(separator: "/", omittingEmptySubsequences: false).dropLast()
            .joined(separator: "/")
        let prefix = bin.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return iconSizes.compactMap { n in
            let places = ["\(prefix)/share/icons/hicolor/\(n)x\(n)/apps/scratchcard.png",
                          "\(bin)/\(ScratchAssets.bundleName)/icons/scratchcard-\(n).png"]
            for path in places where access(path, R_OK) == 0 {
                if let image = try? PNGFile.read(path: path), image.size == PixelSize(width: n, height: n) { return image }
            }
            return nil
        }
    }

    /// A pasted picture's bytes, decoded; nil (and why, logged) when they are no picture.
    static func decode(_ bytes: [UInt8], type: String) -> RGBAImage? {
        do { return try ImageFile.decode(bytes, name: "the pasted \(type)") } catch {
            log("nothing pasted: \(error)")
            return nil
        }
    }
}
