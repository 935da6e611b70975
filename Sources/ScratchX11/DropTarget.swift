@preconcurrency import Glibc
import CX11

/// The window as an XDND target, version 5 (freedesktop.org's drag-and-drop protocol),
/// for `text/uri-list` alone:
///
/// - XdndEnter: the source and the types it offers (three in the message, or its
///   XdndTypeList when more);
/// - XdndPosition: answered by an XdndStatus, every one. The first position of a drag
///   that offers a uri-list fetches the list (dated with that position's time) and the
///   status waits for it: it accepts (XdndActionCopy) only when the program's test
///   finds a file it can use among them. Without a uri-list: refused at once;
/// - XdndLeave: forgotten;
/// - XdndDrop: the list fetched again, dated with the drop's time, then XdndFinished
///   (accepted or not), every one; accepted, the program gets `.dropped(paths:)`.
final class DropTarget {
    static let version = 5
    /// The program's test: whether it can use one of these local files.
    let canUse: ([String]) -> Bool
    private let display: X11Display
    private let window: Window

    /// The drag under way: its source, whether it offers a uri-list, and the test's
    /// verdict on the list once fetched.
    private var source: Window = 0
    private var offersURIList = false
    private var verdict: Bool? = nil
    /// A position is waiting for its status until the list is in.
    private var statusOwed = false

    init(display: X11Display, window: Window, canUse: @escaping ([String]) -> Bool) {
        self.display = display
        self.window = window
        self.canUse = canUse
    }

    func handle(_ message: XClientMessageEvent, reader: SelectionReader) -> WindowEvent? {
        let l = message.data.l
        switch message.message_type {
        case display.atom("XdndEnter"):
            source = Window(l.0)
            verdict = nil
            statusOwed = false
            let types: [UInt] = l.1 & 1 != 0
                ? display.windowProperty32(source, display.atom("XdndTypeList"), type: Atom(XA_ATOM)) ?? []
                : [UInt(l.2), UInt(l.3), UInt(l.4)]
            offersURIList = types.contains(UInt(display.atom("text/uri-list")))
        case display.atom("XdndPosition"):
            guard Window(l.0) == source else { return nil }
            if !offersURIList { sendStatus(accept: false) }
            else if let verdict { sendStatus(accept: verdict) }
            else if !statusOwed {
                statusOwed = true
                reader.request(display.atom("XdndSelection"), as: display.atom("text/uri-list"),
                               into: display.atom("SCRATCHCARD_DROP_CHECK"), time: UInt(l.3)) { [self] outcome in
                    let sameDrag = statusOwed
                    if case .value(let list) = outcome { verdict = canUse(URIList.localPaths(in: list.bytes)) } else { verdict = false }
                    if sameDrag { statusOwed = false; sendStatus(accept: verdict ?? false) }
                    return nil
                }
            }
        case display.atom("XdndLeave"):
            guard Window(l.0) == source else { return nil }
            forget()
        case display.atom("XdndDrop"):
            guard Window(l.0) == source else { return nil }
            let dropSource = source
            guard offersURIList, verdict == true else {
                sendFinished(to: dropSource, accepted: false)
                forget()
                return nil
            }
            forget()
            reader.request(display.atom("XdndSelection"), as: display.atom("text/uri-list"),
                           into: display.atom("SCRATCHCARD_DROP"), time: UInt(l.2)) { [self] outcome in
                let paths = if case .value(let list) = outcome { URIList.localPaths(in: list.bytes) } else { [String]() }
                let usable = !paths.isEmpty && canUse(paths)
                sendFinished(to: dropSource, accepted: usable)
                return usable ? .dropped(paths: paths) : nil
            }
        default:
            break
        }
        return nil
    }

    private func forget() {
        source = 0
        offersURIList = false
        verdict = nil
        statusOwed = false
    }

    /// XdndStatus to the source: accepted or not, no rectangle (a status for every
    /// position), the action XdndActionCopy or None.
    private func sendStatus(accept: Bool) {
        send(to: source, "XdndStatus", [UInt(window), accept ? 1 : 0, 0, 0,
                                        accept ? UInt(display.atom("XdndActionCopy")) : 0])
    }

    /// XdndFinished to the source: whether the drop was taken, and its action.
    private func sendFinished(to target: Window, accepted: Bool) {
        send(to: target, "XdndFinished", [UInt(window), accepted ? 1 : 0,
                                          accepted ? UInt(display.atom("XdndActionCopy")) : 0, 0, 0])
    }

    private func send(to target: Window, _ type: String, _ values: [UInt]) {
        let d = display.handle
        var event = XEvent()
        event.xclient.type = ClientMessage
        event.xclient.send_event = 1
        event.xclient.window = target
        event.xclient.message_type = display.atom(type)
        event.xclient.format = 32
        event.xclient.data.l = (Int(bitPattern: values[0]), Int(bitPattern: values[1]), Int(bitPattern: values[2]),
                                Int(bitPattern: values[3]), Int(bitPattern: values[4]))
        // The source may be gone meanwhile (BadWindow): no error for that.
        _ = trapErrors(d) { XSendEvent(d, target, 0, NoEventMask, &event) }
        display.flush()
    }
}

extension X11Window {
    /// Makes the window an XDND target (`XdndAware` = 5 on it, a top-level window) for
    /// local files (`text/uri-list`): a drag is accepted only when `canUse` says yes to
    /// its files (called with their paths, in order); a drop comes from `nextEvents` as
    /// `.dropped(paths:)`. A window that never calls this (a kiosk) takes no drops.
    public func acceptDrops(canUse: @escaping ([String]) -> Bool) {
        exchange.drop = DropTarget(display: display, window: handle, canUse: canUse)
        let version = [UInt(DropTarget.version)]
        version.withUnsafeBytes { raw in
            _ = XChangeProperty(display.handle, handle, display.atom("XdndAware"), Atom(XA_ATOM), 32, PropModeReplace,
                                raw.baseAddress!.assumingMemoryBound(to: UInt8.self), 1)
        }
        display.flush()
    }
}
