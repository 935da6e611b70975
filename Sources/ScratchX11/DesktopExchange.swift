@preconcurrency import Glibc
import CX11

/// What a window exchanges with other clients of the desktop: files dropped on it (XDND,
/// `DropTarget`), the CLIPBOARD it owns (`ClipboardServer`) or reads (`pasteFromClipboard`),
/// and the selection transfers under both (`SelectionReader`). Made when the window first
/// takes part; `X11Window.translate` hands it the selection events and the client messages
/// other than WM_PROTOCOLS.
final class DesktopExchange {
    let display: X11Display
    let window: Window
    let reader: SelectionReader
    let clipboard: ClipboardServer
    var drop: DropTarget?

    init(display: X11Display, window: Window) {
        self.display = display
        self.window = window
        reader = SelectionReader(display: display, window: window)
        clipboard = ClipboardServer(display: display, window: window)
    }

    /// A client message for the window (the XDND messages): what it means for the program.
    func handleClientMessage(_ message: XClientMessageEvent) -> WindowEvent? {
        drop?.handle(message, reader: reader)
    }

    /// SelectionRequest, SelectionClear (the clipboard we own), SelectionNotify and
    /// PropertyNotify (transfers in; an INCR transfer out waits for the requestor's
    /// deletes): what they mean for the program, if anything.
    func handleSelectionEvent(_ event: inout XEvent) -> WindowEvent? {
        switch event.type {
        case SelectionRequest:
            clipboard.serve(event.xselectionrequest)
            return nil
        case SelectionClear:
            clipboard.lost(event.xselectionclear)
            return nil
        case SelectionNotify:
            return reader.notified(event.xselection)
        case PropertyNotify:
            let p = event.xproperty
            if p.state == PropertyDelete, clipboard.requestorDeleted(p) { return nil }
            if p.state == PropertyNewValue, p.window == window { return reader.newValue(p) }
            return nil
        default:
            return nil
        }
    }
}

extension X11Window {
    /// The window's exchange, made on first use.
    var exchange: DesktopExchange {
        if let exchangeStorage { return exchangeStorage }
        let made = DesktopExchange(display: display, window: handle)
        exchangeStorage = made
        return made
    }
}

/// A window property as read whole: its type, format (8, 16, 32) and items. Format-32
/// items are in `longs` (C longs, as Xlib gives them), others in `bytes`.
struct PropertyValue {
    var type: Atom
    var format: Int32
    var bytes: [UInt8] = []
    var longs: [UInt] = []
}

extension X11Display {
    /// The most a transfer in may bring (256 MiB): a larger one is refused, not allocated.
    static let largestTransfer = 256 << 20

    /// Reads `property` of `window` whole (`XGetWindowProperty` in pieces of 1 MiB) and
    /// deletes it afterwards when `delete`; nil when it is missing or larger than
    /// `largestTransfer`. Errors (a window gone) are trapped: nil too.
    func readProperty(_ window: Window, _ property: Atom, delete: Bool) -> PropertyValue? {
        let d = handle
        var value: PropertyValue? = nil
        let (_, error) = trapErrors(d) {
            var offset = 0
            while true {
                var type: Atom = 0
                var format: Int32 = 0
                var count: UInt = 0, remaining: UInt = 0
                var data: UnsafeMutablePointer<UInt8>? = nil
                let status = XGetWindowProperty(d, window, property, offset, 1 << 18, 0, Atom(AnyPropertyType),
                                                &type, &format, &count, &remaining, &data)
                guard status == Success, type != 0 else { if let data { XFree(data) }; value = nil; return }
                if value == nil { value = PropertyValue(type: type, format: format) }
                if let data {
                    switch format {
                    case 8: value!.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(count)))
                    case 16:
                        data.withMemoryRebound(to: Int16.self, capacity: Int(count)) { shorts in
                            for i in 0..<Int(count) { withUnsafeBytes(of: shorts[i]) { value!.bytes.append(contentsOf: $0) } }
                        }
                    default:
                        data.withMemoryRebound(to: UInt.self, capacity: Int(count)) {
                            value!.longs.append(contentsOf: UnsafeBufferPointer(start: $0, count: Int(count)))
                        }
                    }
                    XFree(data)
                }
                let read = value!.bytes.count + value!.longs.count * 4
                guard remaining > 0 else { break }
                guard read + Int(remaining) <= Self.largestTransfer else { value = nil; break }
                offset = read / 4
            }
            if delete { XDeleteProperty(d, window, property) }
        }
        return error == 0 ? value : nil
    }

    /// The atom's name (`XGetAtomName`), or "" for None or an unknown atom.
    func atomName(_ atom: Atom) -> String {
        guard atom != 0 else { return "" }
        let (name, _) = trapErrors(handle) { XGetAtomName(handle, atom) }
        guard let name else { return "" }
        defer { XFree(name) }
        return String(cString: name)
    }
}

/// Transfers of a selection to this window (ICCCM, section 2.4): `XConvertSelection`
/// into a property of ours, the owner's SelectionNotify, the property read and deleted;
/// a value sent as INCR comes in pieces, each a new value of the property, until an empty one.
final class SelectionReader {
    /// How a transfer ended: the value, or nothing (refused, failed, too large).
    enum Outcome {
        case value(PropertyValue)
        case failed
    }

    private struct Transfer {
        let selection: Atom
        let target: Atom
        /// Set once the owner answered INCR: the pieces so far, and their type.
        var pieces: PropertyValue?
        /// A request with parameters (SAVE_TARGETS): the answer naming the property is
        /// the success, whatever the property holds by then.
        let answerIsEnough: Bool
        let done: (Outcome) -> WindowEvent?
    }

    private let display: X11Display
    private let window: Window
    /// Transfers on their way, by the property each comes into.
    private var transfers: [Atom: Transfer] = [:]
    /// How many transfers came in pieces (INCR), for tests.
    private(set) var incrementalTransfers = 0

    init(display: X11Display, window: Window) {
        self.display = display
        self.window = window
    }

    /// Asks the owner of `selection` for it as `target`, into `property` of our window,
    /// dated `time`. `done` runs once the value is in (or will not come), and what it
    /// returns is handed to the program. A transfer into the same property is replaced.
    /// `parameters`: atoms the target takes (SAVE_TARGETS: the targets to save), put in
    /// the property first.
    func request(_ selection: Atom, as target: Atom, into property: Atom, time: UInt, parameters: [UInt]? = nil,
                 done: @escaping (Outcome) -> WindowEvent?) {
        transfers[property] = Transfer(selection: selection, target: target, pieces: nil,
                                       answerIsEnough: parameters != nil, done: done)
        if let parameters {
            parameters.withUnsafeBytes { raw in
                _ = XChangeProperty(display.handle, window, property, Atom(XA_ATOM), 32, PropModeReplace,
                                    raw.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(parameters.count))
            }
        } else {
            XDeleteProperty(display.handle, window, property)
        }
        XConvertSelection(display.handle, selection, target, property, window, Time(time))
        display.flush()
    }

    /// Whether a transfer into `property` is on its way.
    func isWaiting(on property: Atom) -> Bool { transfers[property] != nil }

    /// The owner's answer.
    func notified(_ event: XSelectionEvent) -> WindowEvent? {
        guard event.requestor == window else { return nil }
        // A refusal names no property; find the transfer by selection and target then.
        let key = event.property != 0 ? event.property
            : transfers.first { $0.value.selection == event.selection && $0.value.target == event.target }?.key
        guard let key, var transfer = transfers[key] else { return nil }
        if transfer.answerIsEnough {
            transfers[key] = nil
            if event.property != 0 { XDeleteProperty(display.handle, window, key) }
            return transfer.done(event.property != 0 ? .value(PropertyValue(type: 0, format: 8)) : .failed)
        }
        guard event.property != 0, let value = display.readProperty(window, key, delete: true) else {
            transfers[key] = nil
            return transfer.done(.failed)
        }
        if value.type == display.atom("INCR") {
            // The property was deleted by the read: that asks the owner for the first piece.
            incrementalTransfers += 1
            transfer.pieces = PropertyValue(type: 0, format: 8)
            transfers[key] = transfer
            display.flush()
            return nil
        }
        transfers[key] = nil
        return transfer.done(.value(value))
    }

    /// A new value of one of our properties: the next piece of an INCR transfer; an
    /// empty piece ends it.
    func newValue(_ event: XPropertyEvent) -> WindowEvent? {
        guard var transfer = transfers[event.atom], var pieces = transfer.pieces else { return nil }
        guard let piece = display.readProperty(window, event.atom, delete: true) else {
            transfers[event.atom] = nil
            return transfer.done(.failed)
        }
        display.flush()
        if piece.bytes.isEmpty && piece.longs.isEmpty {
            transfers[event.atom] = nil
            return transfer.done(.value(pieces))
        }
        pieces.type = piece.type
        pieces.format = piece.format
        pieces.bytes += piece.bytes
        pieces.longs += piece.longs
        guard pieces.bytes.count + pieces.longs.count * 4 <= X11Display.largestTransfer else {
            transfers[event.atom] = nil
            return transfer.done(.failed)
        }
        transfer.pieces = pieces
        transfers[event.atom] = transfer
        return nil
    }
}
