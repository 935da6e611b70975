@preconcurrency import Glibc
import ScratchCore
import CX11

/// What the CLIPBOARD gave: a picture's file as it came (PNG or JPEG), or local files.
public enum ClipboardContent: Equatable, Sendable {
    /// The bytes of a picture file, and their MIME type: "image/png" or "image/jpeg".
    case picture(bytes: [UInt8], type: String)
    /// The local files of a `text/uri-list`, in order (see `URIList`).
    case files([String])
}

/// How `handClipboardToManager` went.
public enum ClipboardHandOver: Equatable, Sendable {
    /// We did not own the CLIPBOARD (nothing copied, or another client copied since).
    case nothingToHand
    /// No clipboard manager runs (no owner of `CLIPBOARD_MANAGER`): the copy ends with us.
    case noManager
    /// The manager took the copy (it answered `SAVE_TARGETS`).
    case handedOver
    /// The manager did not answer in time, or refused.
    case notTaken
}

extension X11Window {
    /// The types a paste takes, best first.
    static let pasteTargets = ["image/png", "image/jpeg", "text/uri-list"]

    /// Puts `png` (a PNG file's bytes) on the CLIPBOARD: the window owns it from the
    /// last key or button event's time and answers other clients (TARGETS, image/png;
    /// INCR for a PNG larger than the server's maximum request) while the program runs
    /// and reads events. False when the server did not make the window its owner.
    @discardableResult
    public func copyToClipboard(png: [UInt8]) -> Bool {
        exchange.clipboard.offer(png: png, time: lastEventTime)
    }

    /// Asks the CLIPBOARD's owner for a picture: its TARGETS first, then the best of
    /// `image/png`, `image/jpeg` and `text/uri-list` it offers. The answer comes from
    /// `nextEvents` as `.pasted(…)`, or `.pasteFailed(why)`; INCR transfers are taken.
    public func pasteFromClipboard() {
        let exchange = exchange
        let d = display
        let clipboard = d.atom("CLIPBOARD"), property = d.atom("SCRATCHCARD_PASTE")
        let time = lastEventTime
        exchange.reader.request(clipboard, as: d.atom("TARGETS"), into: property, time: time) { outcome in
            guard case .value(let offered) = outcome else { return .pasteFailed("the clipboard is empty") }
            let names = offered.longs.map { d.atomName(Atom($0)) }
            guard let wanted = Self.pasteTargets.first(where: names.contains) else {
                let shown = names.filter { !$0.isEmpty && $0 == $0.lowercased() }.prefix(6).joined(separator: ", ")
                return .pasteFailed("the clipboard holds no picture" + (shown.isEmpty ? "" : " (it offers \(shown))"))
            }
            exchange.reader.request(clipboard, as: d.atom(wanted), into: property, time: time) { outcome in
                guard case .value(let value) = outcome, !value.bytes.isEmpty else {
                    return .pasteFailed("the clipboard's owner did not send its \(wanted)")
                }
                if wanted != "text/uri-list" { return .pasted(.picture(bytes: value.bytes, type: wanted)) }
                let paths = URIList.localPaths(in: value.bytes)
                return paths.isEmpty ? .pasteFailed("the clipboard names no local file") : .pasted(.files(paths))
            }
            return nil
        }
    }

    /// On the way out: hands what we copied to the clipboard manager, so that the copy
    /// outlives the program (freedesktop.org's clipboard manager spec): converts
    /// `CLIPBOARD_MANAGER` to `SAVE_TARGETS`, naming image/png, and serves the
    /// manager's requests until it answers, at most `timeout` seconds. Events read
    /// meanwhile are dropped: call it when the program is done with them.
    @discardableResult
    public func handClipboardToManager(timeout: Double = 2) -> ClipboardHandOver {
        guard let exchange = exchangeStorage, exchange.clipboard.owns else { return .nothingToHand }
        let d = display.handle
        let manager = display.atom("CLIPBOARD_MANAGER")
        guard XGetSelectionOwner(d, manager) != 0 else { return .noManager }
        let property = display.atom("SCRATCHCARD_SAVE")
        let saved = HandOverResult()
        exchange.reader.request(manager, as: display.atom("SAVE_TARGETS"), into: property, time: lastEventTime,
                                parameters: [UInt(display.atom("image/png"))]) { outcome in
            if case .value = outcome { saved.state = .handedOver } else { saved.state = .notTaken }
            return nil
        }
        let deadline = monotonicSeconds() + timeout
        while saved.state == nil, monotonicSeconds() < deadline {
            _ = nextEvents(timeout: min(0.05, max(0, deadline - monotonicSeconds())))
        }
        return saved.state ?? .notTaken
    }

    /// How many CLIPBOARD transfers this window sent in pieces (INCR), for tests.
    var clipboardIncrementalTransfers: Int { exchangeStorage?.clipboard.incrementalTransfers ?? 0 }
}

private final class HandOverResult {
    var state: ClipboardHandOver? = nil
}
