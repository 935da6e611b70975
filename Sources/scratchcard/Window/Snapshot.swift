@preconcurrency import Glibc
import ScratchCore
import ScratchImage

/// `s`: what the window shows (`framebuffer`), as a PNG named by the time in `folder`,
/// written atomically; said on stderr.
func saveSnapshot(of framebuffer: Framebuffer, in folder: String) {
    let path = snapshotPath(in: folder)
    do {
        try PNGFile.write(framebuffer.rgbaImage(), to: path)
        log("saved \(path)")
    } catch {
        log("snapshot not saved: \(error)")
    }
}

/// `scratchcard-YYYYMMDD-HHMMSS.png` in `folder`, with `-2`, `-3`… when taken.
func snapshotPath(in folder: String) -> String {
    var now = time(nil)
    var parts = tm()
    localtime_r(&now, &parts)
    var buffer = [CChar](repeating: 0, count: 32)
    let count = strftime(&buffer, buffer.count, "%Y%m%d-%H%M%S", &parts)
    let stamp = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let base = (folder.hasSuffix("/") ? folder : folder + "/") + "scratchcard-\(stamp)"
    var path = base + ".png", n = 2
    while access(path, F_OK) == 0 {
        path = "\(base)-\(n).png"
        n += 1
    }
    return path
}
