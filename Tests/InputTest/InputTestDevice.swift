// A client of one device of Xorg's inputtest input driver (man inputtest(4)): the test
// (or a bench tool) writes events into the device's Unix socket and the server takes
// them as that device's input, like hardware. Its protocol is binary C structs
// (xf86-input-inputtest-protocol.h, through CInputTest); they stay in this file, the API
// is Swift.
//
// How positions reach the screen: the driver's absolute axes (a "PointerAbsolute"
// device's Abs X/Y, a "Touch" device's Abs MT Position X/Y) run over 0...65535
// (TOUCH_AXIS_MAX in the driver). Xorg's dix scales an absolute valuator to the desktop
// (getevents.c, scale_to_desktop → rescaleValuatorAxis) as
//     screen = (value - min) × width / (max - min + 1)
// that is value × width / 65536, in sub-pixel screen coordinates (the range taken as
// max + 1 wide, so that 0...65535 covers [0, width) and no value lands on `width`).
// `valuator(forScreen:extent:)` is the inverse; `move(toX:y:)` and `touch` take screen
// pixels and go through it. RealInputTests.valuatorsMapToTheScreen measures it on a real
// server (32768 lands on 400.0 of 800, 65535 on 799.988).
//
// An executable can use it too (a bench tool driving an absolute pointer at 1000 Hz):
// depend on the `InputTest` target, start Xorg with `InputTestConfig.xorgSections` in its
// config, and connect one `InputTestDevice` per device socket.
import CInputTest
@preconcurrency import Glibc

/// A problem with an inputtest device's socket.
public struct InputTestError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// What the device is, as its `Option "DeviceType"` in xorg.conf spells it.
public enum InputDeviceKind: String, Sendable, CaseIterable {
    /// Relative motion (Rel X/Y), 7 buttons.
    case pointer = "Pointer"
    /// Absolute motion (Abs X/Y over 0...65535), 7 buttons.
    case pointerAbsolute = "PointerAbsolute"
    /// Keys, with the server's default XKB keymap.
    case keyboard = "Keyboard"
    /// A direct touch device (a touchscreen): `TouchCount` touches at once.
    case touch = "Touch"
}

/// A touch's phase: XI_TouchBegin, XI_TouchUpdate, XI_TouchEnd.
public enum TouchPhase: Sendable {
    case begin, update, end

    var xiType: UInt32 {
        switch self {
        case .begin: 18     // XI_TouchBegin
        case .update: 19    // XI_TouchUpdate
        case .end: 20       // XI_TouchEnd
        }
    }
}

/// One connected inputtest device.
///
///     let pointer = try InputTestDevice(socketPath: path, screenWidth: 800, screenHeight: 600)
///     try pointer.move(toX: 100, y: 50)
///     try pointer.button(1, pressed: true)
///     try pointer.sync()          // the server has taken both
///
/// Every event call is one `write` on the socket and waits for nothing (a blocking write
/// only when the server is that far behind, and at most `timeout` then); `sync()` is the
/// only round trip. The driver takes one client per device: keep the one instance.
/// Not thread-safe: one thread drives a device.
public final class InputTestDevice {
    public let socketPath: String
    /// The screen the absolute positions are scaled to (the whole desktop, in pixels).
    public let screenWidth: Int, screenHeight: Int
    /// The protocol version the driver answered with.
    public private(set) var serverVersion: (major: Int, minor: Int) = (0, 0)
    /// The driver's absolute axis range, 0...axisMaximum.
    public static let axisMaximum = 65535.0

    private var fd: Int32 = -1
    // The events, made once and changed in place: an event call fills a few fields and
    // writes the struct, no allocation.
    private var motion = xf86ITEventMotion()
    private var buttonEvent = xf86ITEventButton()
    private var keyEvent = xf86ITEventKey()
    private var touchEvent = xf86ITEventTouch()

    /// Connects to the device's socket, waiting up to `timeout` s for the driver to
    /// create it (it does when the server reads its config), and exchanges versions:
    /// XF86IT_EVENT_CLIENT_VERSION out, XF86IT_RESPONSE_SERVER_VERSION back (the driver
    /// answers once the device is enabled). `timeout` also bounds every later write
    /// and `sync()`.
    public init(socketPath: String, screenWidth: Int, screenHeight: Int, timeout: Double = 15) throws {
        self.socketPath = socketPath
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(socketPath.utf8)
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw InputTestError("\(socketPath): longer than a Unix socket path can be")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
            raw[pathBytes.count] = 0
        }
        let deadline = Self.now() + timeout
        var lastError: Int32 = 0
        while true {
            let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard socket >= 0 else { throw InputTestError("socket(): \(String(cString: strerror(errno)))") }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if connected == 0 { fd = socket; break }
            lastError = errno
            Glibc.close(socket)
            guard Self.now() < deadline else {
                throw InputTestError("\(socketPath): no inputtest device within \(timeout) s (\(String(cString: strerror(lastError))))")
            }
            usleep(20_000)
        }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        prepareEvents()
        do {
            var hello = xf86ITEventClientVersion()
            hello.header.length = UInt32(MemoryLayout<xf86ITEventClientVersion>.size)
            hello.header.type = XF86IT_EVENT_CLIENT_VERSION
            hello.major = UInt16(XF86IT_PROTOCOL_VERSION_MAJOR)
            hello.minor = UInt16(XF86IT_PROTOCOL_VERSION_MINOR)
            try send(&hello)
            var answer = xf86ITResponseServerVersion()
            try receive(&answer, expecting: XF86IT_RESPONSE_SERVER_VERSION)
            serverVersion = (Int(answer.major), Int(answer.minor))
        } catch {
            Glibc.close(fd)
            fd = -1
            throw error
        }
    }

    deinit { close() }

    /// Closes the socket (the driver then waits for a new client).
    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    // MARK: - Events

    /// An absolute motion to screen pixel position (`x`, `y`), sub-pixel allowed
    /// (a "PointerAbsolute" device).
    public func move(toX x: Double, y: Double) throws {
        motion.is_absolute = 1
        setValuators(&motion.valuators, x: valuator(forScreen: x, extent: screenWidth),
                     y: valuator(forScreen: y, extent: screenHeight))
        try send(&motion)
    }

    /// A relative motion by (`dx`, `dy`) device units (a "Pointer" device; the server's
    /// acceleration applies).
    public func moveBy(dx: Double, dy: Double) throws {
        motion.is_absolute = 0
        setValuators(&motion.valuators, x: dx, y: dy)
        try send(&motion)
    }

    /// Button `button` (1 left, 2 middle, 3 right, 4-7 the wheels) pressed or released
    /// where the pointer is.
    public func button(_ button: Int, pressed: Bool) throws {
        buttonEvent.button = Int32(button)
        buttonEvent.is_press = pressed ? 1 : 0
        try send(&buttonEvent)
    }

    /// The key with X keycode `keycode` pressed or released (a "Keyboard" device). The
    /// driver posts the code as the X keycode it is (xf86PostKeyboardEvent); an evdev
    /// (Linux input) code is 8 less: `KEY_Q` 16 is X keycode 24. See `key(evdev:pressed:)`.
    public func key(_ keycode: Int, pressed: Bool) throws {
        keyEvent.key_code = Int32(keycode)
        keyEvent.is_press = pressed ? 1 : 0
        try send(&keyEvent)
    }

    /// The key with Linux input code `code` (linux/input-event-codes.h: KEY_Q is 16),
    /// that is X keycode `code + 8`.
    public func key(evdev code: Int, pressed: Bool) throws {
        try key(code + 8, pressed: pressed)
    }

    /// Touch `id` begins, moves or ends at screen pixel position (`x`, `y`) (a "Touch"
    /// device). Ids are the driver's: any number, one per finger while it is down; a
    /// touch past the device's TouchCount is dropped by the server.
    public func touch(id: UInt32, _ phase: TouchPhase, x: Double, y: Double) throws {
        touchEvent.touchid = id
        touchEvent.touch_type = phase.xiType
        setValuators(&touchEvent.valuators, x: valuator(forScreen: x, extent: screenWidth),
                     y: valuator(forScreen: y, extent: screenHeight))
        try send(&touchEvent)
    }

    /// Waits until the server has processed every event sent so far
    /// (XF86IT_EVENT_WAIT_FOR_SYNC, answered by XF86IT_RESPONSE_SYNC_FINISHED once the
    /// server's input queue has drained): the clients' events are queued by then.
    public func sync() throws {
        var request = xf86ITEventWaitForSync()
        request.header.length = UInt32(MemoryLayout<xf86ITEventWaitForSync>.size)
        request.header.type = XF86IT_EVENT_WAIT_FOR_SYNC
        try send(&request)
        var answer = xf86ITResponseSyncFinished()
        try receive(&answer, expecting: XF86IT_RESPONSE_SYNC_FINISHED)
    }

    // MARK: - Valuators

    /// The absolute axis value that Xorg scales to screen coordinate `position` on an
    /// axis `extent` pixels long: position × 65536 / extent (see the file's head),
    /// clamped to the axis. Pixel p's centre is `p + 0.5`.
    public func valuator(forScreen position: Double, extent: Int) -> Double {
        Swift.min(Self.axisMaximum, Swift.max(0, position * (Self.axisMaximum + 1) / Double(extent)))
    }

    // MARK: - The socket

    private func prepareEvents() {
        motion.header.length = UInt32(MemoryLayout<xf86ITEventMotion>.size)
        motion.header.type = XF86IT_EVENT_MOTION
        buttonEvent.header.length = UInt32(MemoryLayout<xf86ITEventButton>.size)
        buttonEvent.header.type = XF86IT_EVENT_BUTTON
        buttonEvent.is_absolute = 0     // no valuators: the press is where the pointer is
        keyEvent.header.length = UInt32(MemoryLayout<xf86ITEventKey>.size)
        keyEvent.header.type = XF86IT_EVENT_KEY
        touchEvent.header.length = UInt32(MemoryLayout<xf86ITEventTouch>.size)
        touchEvent.header.type = XF86IT_EVENT_TOUCH
    }

    /// Axes 0 and 1 set, none other.
    private func setValuators(_ data: inout xf86ITValuatorData, x: Double, y: Double) {
        data.has_unaccelerated = 0
        withUnsafeMutableBytes(of: &data.mask) { mask in
            for i in mask.indices { mask[i] = 0 }
            mask[0] = 0b11
        }
        data.valuators.0 = x
        data.valuators.1 = y
    }

    /// Writes `event` whole (one `write`; a short one is finished, never split between
    /// events by another writer: one thread drives a device).
    private func send<Event>(_ event: inout Event) throws {
        guard fd >= 0 else { throw InputTestError("\(socketPath): not connected") }
        try withUnsafeBytes(of: &event) { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw InputTestError("\(socketPath): write: \(String(cString: strerror(errno)))")
                }
                offset += written
            }
        }
    }

    /// Reads one response of `Response`'s size and checks its header.
    private func receive<Response>(_ response: inout Response, expecting type: xf86ITResponseType) throws {
        guard fd >= 0 else { throw InputTestError("\(socketPath): not connected") }
        let size = MemoryLayout<Response>.size
        try withUnsafeMutableBytes(of: &response) { bytes in
            var offset = 0
            while offset < size {
                let got = read(fd, bytes.baseAddress! + offset, size - offset)
                if got < 0 && errno == EINTR { continue }
                if got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                    throw InputTestError("\(socketPath): the server did not answer in time")
                }
                if got < 0 { throw InputTestError("\(socketPath): read: \(String(cString: strerror(errno)))") }
                if got == 0 { throw InputTestError("\(socketPath): the server closed the connection") }
                offset += got
            }
        }
        let header = withUnsafeBytes(of: &response) { $0.load(as: xf86ITResponseHeader.self) }
        guard header.type == type, header.length == UInt32(size) else {
            throw InputTestError("\(socketPath): an unexpected answer (type \(header.type.rawValue), \(header.length) bytes)")
        }
    }

    private static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
