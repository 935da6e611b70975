@preconcurrency import Glibc
import CPangoCairo

/// The one Pango font map of the process, and the lock every use of it (and of cairo's
/// fonts) is made under.
///
/// Why: cairo is not safe for fonts made on two threads at once, whatever Pango's font
/// map. cairo 1.16 (Debian 12's, and cairo's code as late as 2021) links a new FreeType
/// font face into the font file's list of faces (`unscaled->faces`, shared by every
/// thread) before it has set the face's backend, and walks and edits that list with no
/// lock (`_cairo_ft_font_face_create`, `_cairo_ft_font_face_destroy`). A thread
/// that looks up the same font file and options in that moment gets the half-made face,
/// and `cairo_scaled_font_create` reads its NULL backend + 0x20: the window's start-up
/// crash of issue 34 ("Bad pointer dereference at 0x20", once in ~2,000 start-ups on a
/// busy machine), the cover drawn on the main thread while the prize is drawn on
/// another (CardImages' `Job`), both in Noto Sans Bold for the first time.
///
/// So: one font map for every thread (Pango's per-thread default maps are torn down at
/// each thread's end, outside any lock of ours, and that destroys cairo fonts too), and
/// every Pango call and every release of a cairo context that has drawn text holds
/// `lock`. It is taken per call, not per drawing: the shapes, gradients and pixels of
/// two drawings still run side by side; only their text waits for each other.
enum Fonts {
    /// Never released: it holds the fonts every drawing shares.
    nonisolated(unsafe) static let map: UnsafeMutablePointer<PangoFontMap>? = pango_cairo_font_map_new()

    /// Recursive, so that a release (a `TextLayout`'s or a `Surface`'s deinit, which lock
    /// too) inside a locked body cannot deadlock.
    private nonisolated(unsafe) static let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        return mutex
    }()

    /// Runs `body` with the fonts' lock held.
    static func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// A layout on `cr` (`pango_cairo_create_layout`, but from the one font map): its
    /// context follows the cairo context's matrix and target's font options. Call with
    /// the lock held.
    static func layout(on cr: OpaquePointer) -> OpaquePointer? {
        guard let map, let context = pango_font_map_create_context(map) else { return nil }
        defer { cpc_unref(UnsafeMutableRawPointer(context)) }
        pango_cairo_update_context(cr, context)
        return pango_layout_new(context)
    }
}
