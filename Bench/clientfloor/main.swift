// clientfloor: the least a client can cost the X server for a drag, the floor under the
// window benchmark's X-server figure (scripts/pacing-bench.sh, build=client and
// build=client-hints; BENCHMARKS.md, "Issue 19, fourth round").
//
// A window over the whole screen, override-redirect (no window manager), that selects
// what the program selects (button presses and releases, Button1MotionMask) and, once
// a frame on a 60 Hz grid, reads every event that came and puts one 120x120 area of a
// shared-memory image under the pointer (XShmPutImage with its completion event, the
// next put only after it): the program's paced loop with no engine, no card and no
// store behind it. With --motion-hints it also selects PointerMotionHintMask and reads
// each frame's motions with one XGetMotionEvents from the server's motion history:
// one event and one round trip a frame instead of an event a motion.
//
// usage: clientfloor [--motion-hints]
//   Prints `ready` once the window is mapped; on SIGTERM prints
//   `motions=M points=P puts=N` (P: points read from the motion history) and exits.
@preconcurrency import Glibc
import CXPresent

func fail(_ message: String) -> Never {
    fputs("clientfloor: \(message)\n", stderr)
    exit(2)
}

nonisolated(unsafe) var stopRequested: sig_atomic_t = 0
signal(SIGTERM) { _ in stopRequested = 1 }

let hints: Bool
switch CommandLine.arguments.dropFirst().first {
case nil: hints = false
case "--motion-hints": hints = true
case let other?: fail("\(other): unknown option (usage: clientfloor [--motion-hints])")
}

guard let d = XOpenDisplay(nil) else { fail("cannot open the display") }
guard XShmQueryExtension(d) != 0 else { fail("the server has no MIT-SHM") }
let shmCompletion = XShmGetEventBase(d) + ShmCompletion
let root = cxp_root_window(d)
var rootAttributes = XWindowAttributes()
XGetWindowAttributes(d, root, &rootAttributes)
let (width, height) = (Int(rootAttributes.width), Int(rootAttributes.height))

var attributes = XSetWindowAttributes()
attributes.override_redirect = 1
let window = XCreateWindow(d, root, 0, 0, UInt32(width), UInt32(height), 0, cxp_default_depth(d), UInt32(InputOutput),
                           cxp_default_visual(d), UInt(CWOverrideRedirect), &attributes)
var mask = ExposureMask | ButtonPressMask | ButtonReleaseMask | Button1MotionMask
if hints { mask |= PointerMotionHintMask }
XSelectInput(d, window, mask)
XMapRaised(d, window)
let gc = XCreateGC(d, window, 0, nil)!

var segment = XShmSegmentInfo()
guard let image = XShmCreateImage(d, cxp_default_visual(d), UInt32(cxp_default_depth(d)), ZPixmap, nil, &segment,
                                  UInt32(width), UInt32(height)) else { fail("XShmCreateImage failed") }
var shmID: Int32 = 0
guard let memory = cxp_shm_private(Int(image.pointee.bytes_per_line) * height, &shmID) else { fail("shmget/shmat failed") }
memset(memory, 0x80, Int(image.pointee.bytes_per_line) * height)
segment.shmid = shmID
segment.shmaddr = memory.assumingMemoryBound(to: CChar.self)
segment.readOnly = 0
image.pointee.data = segment.shmaddr
guard XShmAttach(d, &segment) != 0 else { fail("XShmAttach failed") }
XSync(d, 0)
print("ready")
fflush(stdout)

let side = 120
var motions = 0, points = 0, puts = 0
var pointer = (x: 0, y: 0), moved = false, putInFlight = false
var hinted = false, historySeen: UInt = 0
var slot = timespec()
clock_gettime(CLOCK_MONOTONIC, &slot)
var event = XEvent()
while stopRequested == 0 {
    slot.tv_nsec += 16_666_667
    if slot.tv_nsec >= 1_000_000_000 { slot.tv_nsec -= 1_000_000_000; slot.tv_sec += 1 }
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &slot, nil) == EINTR, stopRequested == 0 {}
    while XPending(d) > 0 {
        XNextEvent(d, &event)
        switch event.type {
        case shmCompletion: putInFlight = false
        case MotionNotify:
            motions += 1
            pointer = (Int(event.xmotion.x), Int(event.xmotion.y))
            moved = true
            if event.xmotion.is_hint != 0 { hinted = true }
        case ButtonPress: historySeen = event.xbutton.time
        default: break
        }
    }
    if hinted {
        // The history since the last point read; the call re-arms the hint.
        var count: Int32 = 0
        if let history = XGetMotionEvents(d, window, historySeen + 1, UInt(CurrentTime), &count) {
            for i in 0..<Int(count) {
                points += 1
                historySeen = Swift.max(historySeen, history[i].time)
                pointer = (Int(history[i].x), Int(history[i].y))
            }
            XFree(history)
        }
        hinted = false
    }
    if moved, !putInFlight {
        let x = Swift.min(Swift.max(0, pointer.x - side / 2), width - side)
        let y = Swift.min(Swift.max(0, pointer.y - side / 2), height - side)
        XShmPutImage(d, window, gc, image, Int32(x), Int32(y), Int32(x), Int32(y), UInt32(side), UInt32(side), 1)
        XFlush(d)
        putInFlight = true
        moved = false
        puts += 1
    }
}
print("motions=\(motions) points=\(points) puts=\(puts)")
XShmDetach(d, &segment)
XCloseDisplay(d)
