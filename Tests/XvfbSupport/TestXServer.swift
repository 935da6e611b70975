// What the tests' helpers need of a private X server, whichever it is: Xvfb, or Xorg on
// the dummy driver. Helpers written against it (capturing a window, finding the card's
// window, xdotool) work on both.
import Foundation

/// A private X server started by a test: its display and the environment that reaches it.
public protocol TestXServer: AnyObject {
    /// ":N", for XOpenDisplay.
    var displayName: String { get }
    /// This process's environment with DISPLAY set to this server, for child processes.
    var environment: [String: String] { get }
}

extension TestXServer {
    /// Runs `program` with `arguments` against this server (no shell) and returns its
    /// standard output. Throws when it cannot start or exits with a non-zero status.
    @discardableResult
    public func run(_ program: String, _ arguments: [String], input: String? = nil) throws -> String {
        try Xvfb.run(program, arguments, environment: environment, input: input)
    }

    /// `xdotool ARGS…`.
    @discardableResult
    public func xdotool(_ arguments: String...) throws -> String { try run("xdotool", arguments) }
}
