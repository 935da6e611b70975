import Foundation
import Testing
import ScratchCore
@testable import ScratchX11
import XvfbSupport

/// Key modifiers from real key presses (xdotool through XTest), and the operator's
/// exit chord parsed and matched.
@Suite(.serialized) struct KeyChordTests {

    /// Presses `keys` (xdotool syntax) over the window and returns the non-modifier keys
    /// that arrive, with their modifiers.
    func press(_ keys: [String], expecting count: Int) throws -> [(Key, KeyModifiers)] {
        let server = try Xvfb()
        defer { server.stop() }
        let (_, window) = try mappedWindow(on: server, pointerAt: 5, 5)
        try server.run("xdotool", ["key"] + keys)
        let modifierNames: Set<String> = ["Control_L", "Control_R", "Alt_L", "Alt_R", "Shift_L", "Shift_R",
                                          "Super_L", "Super_R", "Meta_L", "Meta_R"]
        var pressed: [(Key, KeyModifiers)] = []
        let deadline = Date().addingTimeInterval(5)
        while pressed.count < count, Date() < deadline {
            for event in window.nextEvents(timeout: 0.1) {
                guard case .key(let key, let modifiers) = event, !modifierNames.contains(key.keysymName) else { continue }
                pressed.append((key, modifiers))
            }
        }
        return pressed
    }

    @Test func modifiersComeWithTheKey() throws {
        let pressed = try press(["ctrl+alt+shift+q", "q", "shift+q", "ctrl+q", "super+F12", "ctrl+x", "alt+Escape"],
                                expecting: 7)
        let shown = pressed.map { "\($0.0) \($0.1.rawValue)" }
        let expected: [(Key, KeyModifiers)] = [
            (.q, [.control, .alt, .shift]), (.q, []), (.q, [.shift]), (.q, [.control]),
            (.other("F12"), [.superKey]), (.control("x"), [.control]), (.escape, [.alt]),
        ]
        #expect(pressed.count == expected.count, "\(shown)")
        for (got, want) in zip(pressed, expected) {
            #expect(got.0 == want.0 && got.1 == want.1, "\(shown)")
        }
        let exit = try #require(KeyChord(parsing: "ctrl+alt+shift+q"))
        #expect(pressed.map { exit.matches($0.0, $0.1) } == [true, false, false, false, false, false, false])
    }

    @Test func capsLockDoesNotChangeTheChord() throws {
        // Caps Lock on: the state carries Lock, which is never a modifier of ours.
        let server = try Xvfb()
        defer { server.stop() }
        let (_, window) = try mappedWindow(on: server, pointerAt: 5, 5)
        try server.xdotool("key", "Caps_Lock")
        try server.xdotool("key", "ctrl+alt+shift+q")
        try server.xdotool("key", "Caps_Lock")
        let exit = try #require(KeyChord(parsing: "Ctrl+Alt+Shift+Q"))
        var matched = false
        let deadline = Date().addingTimeInterval(5)
        while !matched, Date() < deadline {
            for event in window.nextEvents(timeout: 0.1) {
                if case .key(let key, let modifiers) = event, exit.matches(key, modifiers) { matched = true }
            }
        }
        #expect(matched)
    }

    static let goodChords: [(String, String, KeyModifiers)] = [
        ("ctrl+alt+shift+q", "q", [.control, .alt, .shift]),
        ("CTRL+ALT+SHIFT+Q", "q", [.control, .alt, .shift]),
        ("Control + Shift + Escape", "Escape", [.control, .shift]),
        ("super+f12", "F12", [.superKey]),
        ("q", "q", []),
        ("alt+enter", "Return", [.alt]),
        ("shift+return", "Return", [.shift]),
        ("ctrl+kp_enter", "KP_Enter", [.control]),
        ("ctrl+space", "space", [.control]),
        ("ctrl+1", "1", [.control]),
        ("ctrl+esc", "Escape", [.control]),
    ]

    @Test(arguments: goodChords)
    func chordsParse(text: String, key: String, modifiers: KeyModifiers) throws {
        let chord = try #require(KeyChord(parsing: text))
        #expect(chord.keysymName == key)
        #expect(chord.modifiers == modifiers)
    }

    @Test(arguments: ["", "ctrl+", "+q", "ctrl++q", "ctrl+alt", "hyper+q", "ctrl+ctrl+q", "ctrl+nosuchkey",
                      "ctrl+alt+shift+qq", "ctrl alt q", "ctrl+u0071"])
    func badChordsAreRefused(text: String) {
        #expect(KeyChord(parsing: text) == nil, "\(text)")
    }

    @Test func matchingWantsExactlyTheModifiersAndTheKeyByName() throws {
        let exit = try #require(KeyChord(parsing: "ctrl+alt+shift+q"))
        #expect(exit.matches(.q, [.control, .alt, .shift]))
        #expect(!exit.matches(.q, [.control, .alt]))
        #expect(!exit.matches(.q, [.control, .alt, .shift, .superKey]))
        #expect(!exit.matches(.r, [.control, .alt, .shift]))
        #expect(!exit.matches(.q, []))
        let z = try #require(KeyChord(parsing: "ctrl+z"))
        #expect(z.matches(.control("z"), [.control]), "doodle's Ctrl+Z arrives as .control")
        #expect(!z.matches(.other("z"), []))
        let escape = try #require(KeyChord(parsing: "escape"))
        #expect(escape.matches(.escape, []))
        #expect(!escape.matches(.escape, [.shift]))
        let f1 = try #require(KeyChord(parsing: "alt+F1"))
        #expect(f1.matches(.other("F1"), [.alt]))
        // Lock and Num Lock bits never reach KeyModifiers.
        #expect(KeyModifiers(state: 0x2 | 0x10) == [], "LockMask | Mod2Mask")
        #expect(KeyModifiers(state: 0x1 | 0x4 | 0x8 | 0x40) == [.shift, .control, .alt, .superKey])
    }
}
