import CX11

/// The modifiers held when a key was pressed, from the `state` of a `KeyPress`:
/// ShiftMask, ControlMask, Mod1Mask (Alt) and Mod4Mask (Super) on the usual keymaps.
/// Lock (Caps Lock) and Mod2 (Num Lock) are never included, so they never change what
/// a chord means.
///
///     case .key(.q, let modifiers) where modifiers == [.control, .alt, .shift]: quit()
public struct KeyModifiers: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let shift = KeyModifiers(rawValue: 1 << 0)
    public static let control = KeyModifiers(rawValue: 1 << 1)
    /// Mod1, where X keymaps put Alt (and Meta).
    public static let alt = KeyModifiers(rawValue: 1 << 2)
    /// Mod4, where X keymaps put Super (the "Windows" key).
    public static let superKey = KeyModifiers(rawValue: 1 << 3)

    /// The modifiers in an X event's `state` mask; other bits (Lock, Mod2, Mod3, Mod5,
    /// buttons) are ignored.
    init(state: UInt32) {
        var modifiers: KeyModifiers = []
        if state & UInt32(ShiftMask) != 0 { modifiers.insert(.shift) }
        if state & UInt32(ControlMask) != 0 { modifiers.insert(.control) }
        if state & UInt32(Mod1Mask) != 0 { modifiers.insert(.alt) }
        if state & UInt32(Mod4Mask) != 0 { modifiers.insert(.superKey) }
        self = modifiers
    }
}

/// A key with an exact set of modifiers, such as the kiosk operator's exit chord.
///
///     let exit = KeyChord(parsing: "ctrl+alt+shift+q")!
///     for event in window.nextEvents(timeout: nil) {
///         if case .key(let key, let modifiers) = event, exit.matches(key, modifiers) { … }
///     }
///
/// The text is case-insensitive: modifiers `ctrl` (or `control`), `alt`, `shift`,
/// `super`, joined by "+", then one key named as an X keysym ("q", "Escape", "F12",
/// "space", "Return"; "enter" and "esc" are accepted too). The key must be a keysym X
/// knows (`XStringToKeysym`), so a typo is refused instead of giving a chord that can
/// never be pressed.
///
/// Matching wants exactly the chord's modifiers (Ctrl+Q does not match
/// Ctrl+Alt+Shift+Q, nor the other way round); Caps Lock and Num Lock never count.
/// The key is compared by keysym name without regard to case, on the unshifted keysym
/// that `WindowEvent.key` carries: "q" matches `Key.q` and `Key.control("q")` alike,
/// and Shift+Q comes as `Key.q` with `.shift`.
public struct KeyChord: Equatable, Sendable {
    /// The key's keysym name as X spells it ("q", "Escape", "F12").
    public let keysymName: String
    public let modifiers: KeyModifiers

    /// Parses "ctrl+alt+shift+q"; nil when a part is empty, a modifier is unknown or
    /// repeated, the key is missing, or the key is not a keysym name.
    public init?(parsing text: String) {
        let parts = text.split(separator: "+", omittingEmptySubsequences: false)
            .map { $0.trimmingWhitespace().lowercased() }
        guard let keyPart = parts.last, !keyPart.isEmpty else { return nil }
        var modifiers: KeyModifiers = []
        for part in parts.dropLast() {
            let modifier: KeyModifiers
            switch part {
            case "ctrl", "control": modifier = .control
            case "alt": modifier = .alt
            case "shift": modifier = .shift
            case "super": modifier = .superKey
            default: return nil
            }
            guard !modifiers.contains(modifier) else { return nil }
            modifiers.insert(modifier)
        }
        guard let name = KeyChord.keysymName(forLowercased: keyPart) else { return nil }
        self.keysymName = name
        self.modifiers = modifiers
    }

    /// Whether a key event is this chord: the same key, exactly the same modifiers.
    public func matches(_ key: Key, _ modifiers: KeyModifiers) -> Bool {
        modifiers == self.modifiers && key.keysymName.lowercased() == keysymName.lowercased()
    }

    /// The canonical name of a keysym given in lower case: X's names are
    /// case-sensitive ("Escape", "KP_Enter", "F12"), so try the text as given, then
    /// capitalised, then X's names of the same spelling in any case among the common
    /// function keys. `XStringToKeysym` needs no connection.
    private static func keysymName(forLowercased name: String) -> String? {
        let aliases = ["enter": "Return", "esc": "Escape", "del": "Delete", "ins": "Insert",
                       "pgup": "Prior", "pgdn": "Next", "pageup": "Prior", "pagedown": "Next"]
        if let alias = aliases[name] { return alias }
        var candidates = [name, name.prefix(1).uppercased() + name.dropFirst()]
        // Two-part names: kp_enter → KP_Enter, caps_lock → Caps_Lock, sys_req → Sys_Req.
        let pieces = name.split(separator: "_")
        if pieces.count > 1 {
            candidates.append(pieces.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: "_"))
            candidates.append(([pieces[0].uppercased()] + pieces.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() })
                .joined(separator: "_"))
        }
        for candidate in candidates {
            let keysym = XStringToKeysym(candidate)
            guard keysym != KeySym(NoSymbol), let canonical = XKeysymToString(keysym) else { continue }
            let spelled = String(cString: canonical)
            // Letters: "q" and "Q" are two keysyms; the unshifted one is what events carry.
            if spelled.lowercased() == name { return spelled.count == 1 ? spelled.lowercased() : spelled }
        }
        return nil
    }
}

private extension Substring {
    func trimmingWhitespace() -> Substring {
        var s = self
        while let first = s.first, first.isWhitespace { s.removeFirst() }
        while let last = s.last, last.isWhitespace { s.removeLast() }
        return s
    }
}
