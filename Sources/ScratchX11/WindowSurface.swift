@preconcurrency import Glibc
import CX11
import ScratchCore

/// The framebuffer the compositor writes, on screen: an XImage in the drawing visual's
/// layout (`X11Display.pixelLayout`), shared with the server through MIT-SHM when it can be, else a plain XImage.
///
///     let surface = try WindowSurface(window: window, size: window.size, useSharedMemory: true)
///     if surface.canDraw {
///         canvas.composite(dirty, into: surface.framebuffer)
///         surface.present(dirty)        // XShmPutImage; canDraw is false until .putCompleted
///     }
///
/// MIT-SHM, as docs/ARCHITECTURE.md has it (after xscreensaver's xshm.c, with Qt's 0600): the
/// segment is created with mode 0600 (`shmget(IPC_PRIVATE, size, IPC_CREAT | 0600)`),
/// attached (`shmat`) and at once marked for removal (`shmctl(IPC_RMID)`), so it cannot
/// outlive the program; then the server attaches it (`XShmAttach`) with X errors
/// trapped and `XSync`. Any failure there (no extension, BadAccess from a server that
/// cannot see our uid, no memory) and `useSharedMemory: false` all lead to the same
/// code through a plain XImage and `XPutImage`.
public final class WindowSurface {
    public let window: X11Window
    /// Pixels in the display's native layout, borrowing the XImage's memory. Replaced by
    /// `resize(to:)`: do not keep it across a resize.
    public private(set) var framebuffer: Framebuffer
    /// True while the image lives in shared memory; false after a fallback.
    public private(set) var usesSharedMemory: Bool
    /// False while the server may still be reading the shared image (a put is in flight):
    /// never write into the framebuffer then (Qt's rule). Always true on the plain path.
    public var canDraw: Bool { !putInFlight }
    /// The area of every present so far, in pixels (for --stats).
    public private(set) var pixelsPut: Int = 0
    /// Why shared memory is not used, when it was asked for and failed; nil otherwise.
    public private(set) var fallbackReason: String?

    public var size: PixelSize { framebuffer.size }

    private let wantsSharedMemory: Bool
    private var image: Image
    private let gc: GC
    private var putInFlight = false

    /// One XImage and how its memory was made.
    private struct Image {
        let ximage: UnsafeMutablePointer<XImage>
        /// The segment, for MIT-SHM images; Xlib keeps a pointer to it (`obdata`).
        let segment: UnsafeMutablePointer<XShmSegmentInfo>?
    }

    /// - Throws: `X11Error.unsupportedVisual` when the screen offers no 24/32-bit
    ///   TrueColor visual; `X11Error.imageCreationFailed` when no image can be made at all.
    public init(window: X11Window, size: PixelSize, useSharedMemory: Bool) throws(X11Error) {
        let display = window.display
        guard let layout = display.pixelLayout else { throw .unsupportedVisual(display.visualProblem ?? "") }
        self.window = window
        self.wantsSharedMemory = useSharedMemory
        guard let gc = XCreateGC(display.handle, window.handle, 0, nil) else {
            throw .imageCreationFailed("XCreateGC failed")
        }
        self.gc = gc
        let made: (Image, String?)
        do {
            made = try Self.makeImage(display: display, size: size, useSharedMemory: useSharedMemory)
        } catch {
            XFreeGC(display.handle, gc)
            throw error
        }
        image = made.0
        fallbackReason = made.1
        usesSharedMemory = made.0.segment != nil
        framebuffer = Self.framebuffer(of: made.0, size: size, layout: layout)
        window.register(self)
    }

    deinit {
        Self.release(image, display: window.display)
        XFreeGC(window.display.handle, gc)
    }

    /// Sends `rect` (clipped to the image) to the window at the same place.
    ///
    /// Shared memory: `XShmPutImage` with send_event True; `canDraw` turns false until
    /// the completion event comes back through `X11Window.nextEvents` (as
    /// `.putCompleted`). Plain: `XPutImage`, drawable again at once. Both flush.
    /// - Returns: false, sending nothing, while an earlier put is still in flight (keep
    ///   the dirty rectangle and present it after `.putCompleted`) or when `rect` is
    ///   empty after clipping.
    @discardableResult
    public func present(_ rect: PixelRect) -> Bool {
        let rect = rect.intersection(PixelRect(size: framebuffer.size))
        guard !rect.isEmpty, !putInFlight else { return false }
        let d = window.display.handle
        let x = Int32(rect.x), y = Int32(rect.y), w = UInt32(rect.width), h = UInt32(rect.height)
        if image.segment != nil {
            XShmPutImage(d, window.handle, gc, image.ximage, x, y, x, y, w, h, 1)
            putInFlight = true
        } else {
            XPutImage(d, window.handle, gc, image.ximage, x, y, x, y, w, h)
        }
        pixelsPut += rect.area
        XFlush(d)
        return true
    }

    /// The server has finished reading the shared image: drawing may go on. Called by
    /// `X11Window.nextEvents` on ShmCompletion; harmless when nothing is in flight.
    public func handleCompletion() {
        putInFlight = false
    }

    /// A completion for a given segment: ignored unless it is this surface's current one
    /// (a completion for an image replaced by `resize(to:)` may still arrive).
    func handleCompletion(segment: ShmSeg) {
        if let current = image.segment, current.pointee.shmseg == segment { handleCompletion() }
    }

    /// Replaces the image by a new one of `size` (contents undefined, to be repainted);
    /// the old one is detached and freed. Tries shared memory again if it was asked for.
    public func resize(to size: PixelSize) throws(X11Error) {
        let display = window.display
        let made = try Self.makeImage(display: display, size: size, useSharedMemory: wantsSharedMemory)
        // Release waits (XSync) until the server has finished with the old image.
        Self.release(image, display: display)
        image = made.0
        fallbackReason = made.1
        usesSharedMemory = made.0.segment != nil
        putInFlight = false
        framebuffer = Self.framebuffer(of: made.0, size: size, layout: display.pixelLayout!)
    }

    // MARK: - Images

    private static func framebuffer(of image: Image, size: PixelSize, layout: PixelLayout) -> Framebuffer {
        Framebuffer(borrowing: UnsafeMutableRawPointer(image.ximage.pointee.data), size: size,
                    bytesPerRow: Int(image.ximage.pointee.bytes_per_line), layout: layout)
    }

    /// A shared image when asked for and possible, else a plain one; with the reason
    /// shared memory was not used when it was asked for.
    private static func makeImage(display: X11Display, size: PixelSize,
                                  useSharedMemory: Bool) throws(X11Error) -> (Image, String?) {
        guard size.width > 0, size.height > 0, size.width <= 32767, size.height <= 32767 else {
            throw .imageCreationFailed("size \(size) is out of range")
        }
        var reason: String? = nil
        if useSharedMemory {
            switch makeSharedImage(display: display, size: size) {
            case .success(let image): return (image, nil)
            case .failure(let why): reason = why.message
            }
        }
        return (try makePlainImage(display: display, size: size), reason)
    }

    private struct Failure: Error { let message: String }

    /// `XShmCreateImage`, `shmget` 0600, `shmat`, `shmctl(IPC_RMID)`, trapped
    /// `XShmAttach` + `XSync`. Undoes every step on failure.
    private static func makeSharedImage(display: X11Display, size: PixelSize) -> Result<Image, Failure> {
        let d = display.handle
        guard display.hasSharedMemory else { return .failure(Failure(message: "the server has no MIT-SHM")) }
        guard let visual = display.drawingVisual else { return .failure(Failure(message: "no visual to draw with")) }
        let segment = UnsafeMutablePointer<XShmSegmentInfo>.allocate(capacity: 1)
        segment.initialize(to: XShmSegmentInfo())
        guard let ximage = XShmCreateImage(d, visual.visual, UInt32(visual.depth), ZPixmap, nil, segment,
                                           UInt32(size.width), UInt32(size.height)) else {
            segment.deallocate()
            return .failure(Failure(message: "XShmCreateImage failed"))
        }
        func fail(_ message: String) -> Result<Image, Failure> {
            ximage.pointee.data = nil
            _ = cx11_destroy_image(ximage)
            segment.deallocate()
            return .failure(Failure(message: message))
        }
        guard ximage.pointee.bits_per_pixel == 32 else { return fail("\(ximage.pointee.bits_per_pixel) bits per pixel") }
        let byteCount = Int(ximage.pointee.bytes_per_line) * Int(ximage.pointee.height)
        let id = cx11_shm_create_private(byteCount)
        guard id >= 0 else { return fail("shmget: \(String(cString: strerror(errno)))") }
        guard let address = cx11_shm_attach(id) else {
            let why = String(cString: strerror(errno))
            _ = cx11_shm_mark_removed(id)
            return fail("shmat: \(why)")
        }
        // Ours is attached: mark it for removal now, so it goes when the last user
        // detaches, even if we are killed before cleaning up. Linux still lets the
        // server attach it.
        _ = cx11_shm_mark_removed(id)
        segment.pointee.shmid = id
        segment.pointee.shmaddr = address.assumingMemoryBound(to: CChar.self)
        segment.pointee.readOnly = 0
        ximage.pointee.data = segment.pointee.shmaddr
        let (status, error) = trapErrors(d) { XShmAttach(d, segment) }
        guard status != 0, error == 0 else {
            shmdt(address)
            return fail(error != 0 ? "XShmAttach: \(errorText(d, code: error))" : "XShmAttach failed")
        }
        return .success(Image(ximage: ximage, segment: segment))
    }

    /// `XCreateImage` over memory from `malloc` (which `XDestroyImage` frees).
    private static func makePlainImage(display: X11Display, size: PixelSize) throws(X11Error) -> Image {
        let bytesPerRow = size.width * 4
        guard let visual = display.drawingVisual else { throw .unsupportedVisual(display.visualProblem ?? "") }
        let (count, overflow) = bytesPerRow.multipliedReportingOverflow(by: size.height)
        guard !overflow, let memory = malloc(count) else {
            throw .imageCreationFailed("cannot allocate \(size) pixels")
        }
        memset(memory, 0, count)
        guard let ximage = XCreateImage(display.handle, visual.visual, UInt32(visual.depth), ZPixmap, 0,
                                        memory.assumingMemoryBound(to: CChar.self),
                                        UInt32(size.width), UInt32(size.height), 32, Int32(bytesPerRow)) else {
            free(memory)
            throw .imageCreationFailed("XCreateImage failed")
        }
        guard ximage.pointee.bits_per_pixel == 32 else {
            _ = cx11_destroy_image(ximage)
            throw .unsupportedVisual("\(ximage.pointee.bits_per_pixel) bits per pixel")
        }
        return Image(ximage: ximage, segment: nil)
    }

    /// Detaches (`XShmDetach`, `XSync`: the server is done with it), `shmdt`s and
    /// destroys an image (`XDestroyImage`).
    private static func release(_ image: Image, display: X11Display) {
        let d = display.handle
        if let segment = image.segment {
            XShmDetach(d, segment)
            XSync(d, 0)
            shmdt(segment.pointee.shmaddr)
            image.ximage.pointee.data = nil
            _ = cx11_destroy_image(image.ximage)
            segment.deallocate()
        } else {
            _ = cx11_destroy_image(image.ximage)
        }
    }
}
