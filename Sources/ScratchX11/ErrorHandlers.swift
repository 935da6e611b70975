@preconcurrency import Glibc
import CX11
import Synchronization

// How X errors are handled (docs/ARCHITECTURE.md, Reliability):
//
// - An IO error (the connection is gone) ends the program with a message and exit 1:
//   Xlib would exit anyway after the handler returns, and must never hang.
// - Unexpected protocol errors are reported on stderr and the program goes on.
// - Expected errors (the MIT-SHM attach, XGetImage on a window that may be hidden) are
//   trapped around exactly the call that may raise them, dwm style: install the
//   trapping handler, make the call, XSync, restore the previous handler.
//
// The handlers are capture-free C functions, so the trapped error code lives in a
// global; an atomic `let`, so no global `var` is needed. Xlib's error handler is
// process-wide: trapping assumes one thread drives X at a time.

/// The error code caught by `trapHandler` since the last `trapErrors` began; 0 for none.
private let trappedErrorCode = Atomic<Int32>(0)

/// Installed once, the first time a display is opened: Swift runs a global's
/// initialiser exactly once, thread-safely.
let installDefaultErrorHandlers: Void = {
    _ = XSetIOErrorHandler(ioErrorHandler)
    _ = XSetErrorHandler(reportingErrorHandler)
}()

private func ioErrorHandler(_ display: OpaquePointer?) -> Int32 {
    let message = "scratchcard: lost the connection to the X server\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(1)
}

/// The text of an X error, from `XGetErrorText`, and the request that caused it.
func describe(_ display: OpaquePointer?, _ event: XErrorEvent) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    XGetErrorText(display, Int32(event.error_code), &buffer, Int32(buffer.count))
    let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return "\(text) (error \(event.error_code), request \(event.request_code).\(event.minor_code), resource 0x\(String(event.resourceid, radix: 16)))"
}

private func reportingErrorHandler(_ display: OpaquePointer?, _ event: UnsafeMutablePointer<XErrorEvent>?) -> Int32 {
    guard let event else { return 0 }
    let line = "scratchcard: X error: \(describe(display, event.pointee))\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    return 0
}

private func trapHandler(_ display: OpaquePointer?, _ event: UnsafeMutablePointer<XErrorEvent>?) -> Int32 {
    trappedErrorCode.store(Int32(event?.pointee.error_code ?? 255), ordering: .relaxed)
    return 0
}

/// Runs `body` with X errors trapped instead of reported: `XSync` first (so earlier
/// errors are not blamed on `body`), install the trapping handler, call, `XSync`,
/// restore. Returns body's result and the X error code it raised (0 when none).
func trapErrors<T>(_ display: OpaquePointer, _ body: () -> T) -> (T, errorCode: Int32) {
    XSync(display, 0)
    trappedErrorCode.store(0, ordering: .relaxed)
    let previous = XSetErrorHandler(trapHandler)
    let result = body()
    XSync(display, 0)
    _ = XSetErrorHandler(previous)
    return (result, trappedErrorCode.exchange(0, ordering: .relaxed))
}

/// The name of an X error code, through `XGetErrorText`.
func errorText(_ display: OpaquePointer, code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    XGetErrorText(display, code, &buffer, Int32(buffer.count))
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
