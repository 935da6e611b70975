import Foundation
import ScratchX11

extension X11Window {
    /// Reads events until `done` holds for the list so far, or `timeout` seconds pass.
    func collect(timeout: Double = 5, until done: ([WindowEvent]) -> Bool) -> [WindowEvent] {
        var events: [WindowEvent] = []
        let deadline = Date().addingTimeInterval(timeout)
        while !done(events), Date() < deadline {
            events += nextEvents(timeout: 0.1)
        }
        return events
    }
}
