import Foundation
import Testing
import ScratchCore
@testable import ScratchX11
import XvfbSupport

/// Ctrl held with a key: `.control(name)` for keys without a name of their own; the
/// named keys (q, Escape, ...) and keys without Ctrl are as before.
@Suite(.serialized) struct ControlKeyTests {
    @Test func controlKeysAreTranslated() throws {
        let server = try Xvfb()
        defer { server.stop() }
        let (_, window) = try mappedWindow(on: server, pointerAt: 5, 5)
        try server.xdotool("key", "ctrl+z", "z", "ctrl+q", "u")
        var keys: [Key] = []
        let deadline = Date().addingTimeInterval(5)
        while keys.count < 4, Date() < deadline {
            keys += window.nextEvents(timeout: 0.1).compactMap { event -> Key? in if case .key(let k, _) = event { k } else { nil } }
            // Ctrl itself comes as a key too (Control_L); leave it out.
            keys.removeAll { $0 == .other("Control_L") }
        }
        #expect(keys == [.control("z"), .other("z"), .q, .other("u")])
    }
}
