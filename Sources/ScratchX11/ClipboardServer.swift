@preconcurrency import Glibc
import CX11

/// The CLIPBOARD while this window owns it (ICCCM, section 2): answers `TARGETS`,
/// `TIMESTAMP` and `image/png`. A PNG larger than the server takes in one request goes
/// as INCR: the property set to INCR with the size, then a piece each time the
/// requestor deletes the property, and an empty piece at the end.
final class ClipboardServer {
    private let display: X11Display
    private let window: Window
    /// The PNG on offer, and since when we own the CLIPBOARD.
    private(set) var png: [UInt8]? = nil
    private var ownedSince: UInt = 0

    /// An INCR transfer out: what is left to send to `requestor`'s `property`.
    private struct Outgoing {
        let requestor: Window
        let property: Atom
        let type: Atom
        let bytes: [UInt8]
        var sent: Int
    }
    private var outgoing: [Outgoing] = []
    /// How many transfers went out in pieces, for tests.
    private(set) var incrementalTransfers = 0

    init(display: X11Display, window: Window) {
        self.display = display
        self.window = window
    }

    /// The most bytes one property change may carry here: the server's maximum request
    /// (`XMaxRequestSize`, in 4-byte units) less room for the request's own fields.
    var largestPiece: Int { Int(XMaxRequestSize(display.handle)) * 4 - 100 }

    /// Takes the CLIPBOARD at `time` with `png` on offer; false when the server did not
    /// make us its owner (a later owner's time).
    func offer(png: [UInt8], time: UInt) -> Bool {
        let d = display.handle
        let clipboard = display.atom("CLIPBOARD")
        XSetSelectionOwner(d, clipboard, window, Time(time))
        guard XGetSelectionOwner(d, clipboard) == window else { return false }
        self.png = png
        ownedSince = time
        return true
    }

    /// Whether this window owns the CLIPBOARD now.
    var owns: Bool {
        png != nil && XGetSelectionOwner(display.handle, display.atom("CLIPBOARD")) == window
    }

    /// Another client took the CLIPBOARD: nothing is on offer any more (transfers under
    /// way go on: they were asked for while we owned it).
    func lost(_ event: XSelectionClearEvent) {
        guard event.window == window, event.selection == display.atom("CLIPBOARD") else { return }
        png = nil
    }

    /// Answers a request for the CLIPBOARD: the value written to the requestor's
    /// property, then a SelectionNotify naming it, or None when refused.
    func serve(_ request: XSelectionRequestEvent) {
        let d = display.handle
        let targets = display.atom("TARGETS"), pngType = display.atom("image/png")
        // Obsolete clients name no property: the target's name is the property then.
        let property = request.property != 0 ? request.property : request.target
        var answered = false
        if let png, request.owner == window, request.selection == display.atom("CLIPBOARD"),
           request.time == UInt(CurrentTime) || request.time >= ownedSince {
            if request.target == targets {
                let list: [UInt] = [UInt(targets), UInt(display.atom("TIMESTAMP")), UInt(pngType)]
                answered = change(request.requestor, property, type: Atom(XA_ATOM), longs: list)
            } else if request.target == display.atom("TIMESTAMP") {
                answered = change(request.requestor, property, type: Atom(XA_INTEGER), longs: [ownedSince])
            } else if request.target == pngType {
                if png.count > largestPiece {
                    answered = beginIncremental(request.requestor, property, type: pngType, bytes: png)
                } else {
                    answered = change(request.requestor, property, type: pngType, bytes: png)
                }
            }
        }
        var event = XEvent()
        event.xselection.type = SelectionNotify
        event.xselection.send_event = 1
        event.xselection.requestor = request.requestor
        event.xselection.selection = request.selection
        event.xselection.target = request.target
        event.xselection.property = answered ? property : 0
        event.xselection.time = request.time
        _ = trapErrors(d) { XSendEvent(d, request.requestor, 0, NoEventMask, &event) }
        display.flush()
    }

    /// The requestor deleted a property we are filling in pieces: the next piece (an
    /// empty one after the last). True when the event was one of ours.
    func requestorDeleted(_ event: XPropertyEvent) -> Bool {
        guard let index = outgoing.firstIndex(where: { $0.requestor == event.window && $0.property == event.atom }) else {
            return false
        }
        var transfer = outgoing[index]
        let end = min(transfer.bytes.count, transfer.sent + largestPiece)
        let piece = Array(transfer.bytes[transfer.sent..<end])
        let written = change(transfer.requestor, transfer.property, type: transfer.type, bytes: piece)
        transfer.sent = end
        if piece.isEmpty || !written {
            outgoing.remove(at: index)
            // Stop hearing of the requestor's properties, unless another transfer goes there.
            if transfer.requestor != window, !outgoing.contains(where: { $0.requestor == transfer.requestor }) {
                _ = trapErrors(display.handle) { XSelectInput(display.handle, transfer.requestor, NoEventMask) }
            }
        } else {
            outgoing[index] = transfer
        }
        display.flush()
        return true
    }

    private func beginIncremental(_ requestor: Window, _ property: Atom, type: Atom, bytes: [UInt8]) -> Bool {
        let d = display.handle
        // Hear of the requestor's deletes before telling it INCR.
        if requestor != window {
            _ = trapErrors(d) { XSelectInput(d, requestor, PropertyChangeMask) }
        }
        guard change(requestor, property, type: display.atom("INCR"), longs: [UInt(bytes.count)]) else { return false }
        outgoing.removeAll { $0.requestor == requestor && $0.property == property }
        outgoing.append(Outgoing(requestor: requestor, property: property, type: type, bytes: bytes, sent: 0))
        incrementalTransfers += 1
        return true
    }

    /// Replaces a property of another client's window; false when it failed (trapped:
    /// the window may be gone).
    private func change(_ requestor: Window, _ property: Atom, type: Atom, bytes: [UInt8]) -> Bool {
        let d = display.handle
        let (_, error) = trapErrors(d) {
            XChangeProperty(d, requestor, property, type, 8, PropModeReplace, bytes, Int32(bytes.count))
        }
        return error == 0
    }

    private func change(_ requestor: Window, _ property: Atom, type: Atom, longs: [UInt]) -> Bool {
        let d = display.handle
        let (_, error) = trapErrors(d) {
            longs.withUnsafeBytes { raw in
                XChangeProperty(d, requestor, property, type, 32, PropModeReplace,
                                raw.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(longs.count))
            }
        }
        return error == 0
    }
}
