// presentbench: measures whether vblank-timed presents of a shared-memory pixmap (the X
// Present extension) beat plain paced puts (XShmPutImage at the pacer's slots, as the
// program does) on latency and tearing. Run it against a private X server
// (scripts/present-bench.sh starts Xvfb; an Xorg with the dummy driver works too).
//
// Input is simulated inside the process at --input-hz (default 1000): each "event" is a
// time stamp; a frame carries the events that came since the last one. For each mode:
//   put          XShmPutImage of a 64x64 area at most once per 1/--rate s (the program's
//                rule: the first after a pause at once), with its completion event
//   present-asap XPresentPixmap of the shared pixmap (update region 64x64), target the
//                next vblank, sent as soon as the previous one completed
//   present-late XPresentPixmap sent 3 ms before the predicted next vblank (a late
//                latch from the last completion's ust), target that vblank
// and prints latency (event to the completion read back, p50/p99 us), frames a second,
// and how many frames landed within 1 ms after a vblank (the Present clock's ust/msc
// grid): a copy elsewhere in the refresh is the one that can tear on a real panel.
@preconcurrency import Glibc
import CXPresent

func now() -> Int {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec * 1_000_000 + t.tv_nsec / 1000
}

func fail(_ message: String) -> Never {
    fputs("presentbench: \(message)\n", stderr)
    exit(1)
}

var seconds = 3.0, rate = 60.0, inputHz = 1000.0
var width = 1920, height = 1080
var modes = ["put", "present-asap", "present-late"]
/// One decimal place.
func fixed1(_ x: Double) -> String {
    let tenths = Int((x * 10).rounded())
    return "\(tenths / 10).\(abs(tenths % 10))"
}

var arguments = CommandLine.arguments.dropFirst()
while let a = arguments.popFirst() {
    func value() -> String {
        guard let next = arguments.popFirst() else { fail("\(a) needs a value") }
        return next
    }
    func number() -> Double {
        guard let v = Double(value()), v > 0, v.isFinite else { fail("\(a) takes a number greater than 0") }
        return v
    }
    switch a {
    case "--seconds": seconds = number()
    case "--rate": rate = number()
    case "--input-hz": inputHz = number()
    case "--mode": modes = [value()]
    case "--size":
        let parts = value().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2 else { fail("--size takes WxH") }
        (width, height) = (parts[0], parts[1])
    default: fail("usage: presentbench [--seconds S] [--rate HZ] [--input-hz HZ] [--size WxH] [--mode put|present-asap|present-late]")
    }
}

guard let d = XOpenDisplay(nil) else { fail("cannot open the display") }
var presentOpcode: Int32 = 0, presentEvent: Int32 = 0, presentError: Int32 = 0
let hasPresent = XQueryExtension(d, "Present", &presentOpcode, &presentEvent, &presentError) != 0
guard hasPresent else { fail("the server has no Present extension") }
guard XShmQueryExtension(d) != 0 else { fail("the server has no MIT-SHM") }
var shmMajor: Int32 = 0, shmMinor: Int32 = 0, shmPixmaps: Int32 = 0
XShmQueryVersion(d, &shmMajor, &shmMinor, &shmPixmaps)
guard shmPixmaps != 0 else { fail("the server has no MIT-SHM pixmaps") }
let shmCompletion = XShmGetEventBase(d) + ShmCompletion

let depth = cxp_default_depth(d)
let window = XCreateSimpleWindow(d, cxp_root_window(d), 0, 0, UInt32(width), UInt32(height), 0, 0, 0)
XSelectInput(d, window, ExposureMask)
XMapWindow(d, window)
XSync(d, 0)
let gc = XCreateGC(d, window, 0, nil)!

// One segment, seen as an XImage (for puts) and as a pixmap (for presents).
var segment = XShmSegmentInfo()
guard let image = XShmCreateImage(d, cxp_default_visual(d), UInt32(depth), ZPixmap, nil, &segment,
                                  UInt32(width), UInt32(height)) else { fail("XShmCreateImage failed") }
var shmID: Int32 = 0
let bytes = Int(image.pointee.bytes_per_line) * height
guard let memory = cxp_shm_private(bytes, &shmID) else { fail("shmget/shmat failed") }
segment.shmid = shmID
segment.shmaddr = memory.assumingMemoryBound(to: CChar.self)
segment.readOnly = 0
image.pointee.data = segment.shmaddr
guard XShmAttach(d, &segment) != 0 else { fail("XShmAttach failed") }
let pixmap = XShmCreatePixmap(d, window, segment.shmaddr, &segment, UInt32(width), UInt32(height), UInt32(depth))
let eventID = XPresentSelectInput(d, window, UInt32(PresentCompleteNotifyMask | PresentIdleNotifyMask))
XSync(d, 0)
var updateRect = XRectangle(x: 100, y: 100, width: 64, height: 64)
let update = XFixesCreateRegion(d, &updateRect, 1)

/// What the connection said since the last call.
struct Heard {
    var putCompleted = false
    var presentCompleted: (ust: Int, msc: UInt64)?
    var idle = false
    var mscNotified: (ust: Int, msc: UInt64)?
}

@MainActor func drain() -> Heard {
    var heard = Heard()
    var event = XEvent()
    while XPending(d) > 0 {
        XNextEvent(d, &event)
        if event.type == shmCompletion { heard.putCompleted = true; continue }
        guard event.type == GenericEvent, cxp_cookie_extension(&event) == presentOpcode else { continue }
        guard XGetEventData(d, &event.xcookie) != 0 else { continue }
        defer { XFreeEventData(d, &event.xcookie) }
        switch cxp_cookie_evtype(&event) {
        case PresentCompleteNotify:
            let complete = cxp_complete(&event)!.pointee
            let stamp = (ust: Int(complete.ust), msc: complete.msc)
            if complete.kind == UInt8(PresentCompleteKindPixmap) { heard.presentCompleted = stamp } else { heard.mscNotified = stamp }
        case PresentIdleNotify:
            heard.idle = true
        default:
            break
        }
    }
    return heard
}

@MainActor func waitFor(until deadline: Int) {
    XFlush(d)
    if XPending(d) > 0 { return }
    _ = cxp_wait(cxp_connection_number(d), Int64(max(0, deadline - now())) * 1000)
}

/// The Present clock: two MSC notifications a few frames apart give the vblank grid.
@MainActor func vblankGrid() -> (ust: Int, period: Double) {
    func next(_ target: UInt64) -> (ust: Int, msc: UInt64) {
        XPresentNotifyMSC(d, window, 0, target, 0, 0)
        let deadline = now() + 2_000_000
        while now() < deadline {
            waitFor(until: deadline)
            if let stamp = drain().mscNotified { return stamp }
        }
        fail("no MSC notification within 2 s")
    }
    let first = next(0)
    let second = next(first.msc + 10)
    return (second.ust, Double(second.ust - first.ust) / Double(second.msc - first.msc))
}

func percentile(_ values: [Int], _ p: Double) -> Int {
    guard !values.isEmpty else { return -1 }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * p).rounded(.up)) - 1))]
}

let grid = vblankGrid()
print("presentbench server=\(String(cString: XDisplayString(d))) size=\(width)x\(height) vblank_period_us=\(fixed1(grid.period)) input_hz=\(Int(inputHz)) pacer_hz=\(rate)")

for mode in modes {
    let interval = Int(1e6 / rate)
    let eventEvery = 1e6 / inputHz
    let start = now() + 50_000, end = start + Int(seconds * 1e6)
    var nextEvent = Double(start)
    var pending: [Int] = [], inFlight: [Int] = []
    var latencies: [Int] = []
    var frames = 0, framesNearVblank = 0
    var lastSend: Int? = nil
    var busy = false                  // a put or present in flight (the image not to be written)
    var pixmapBusy = false            // a present not yet idle
    var lastVblank = grid.ust         // the latest vblank (ust), from a chain of MSC notifications
    var period = grid.period          // the vblank period, as the notifications show it
    var sentAt = 0
    var vblanks: [Int] = [grid.ust]    // the latest few vblanks
    XPresentNotifyMSC(d, window, 0, 0, 0, 0)
    var completionTimes: [Int] = []
    while now() < end || busy || pixmapBusy {
        let t = now()
        while nextEvent <= Double(t) && nextEvent < Double(end) { pending.append(Int(nextEvent)); nextEvent += eventEvery }
        let heard = drain()
        let completedAt = now()
        if let stamp = heard.mscNotified ?? heard.presentCompleted, stamp.ust > lastVblank {
            let delta = Double(stamp.ust - lastVblank)
            if delta < 1.5 * period { period = 0.9 * period + 0.1 * delta }
            lastVblank = stamp.ust
            vblanks.append(stamp.ust)
            if vblanks.count > 8 { vblanks.removeFirst() }
        }
        if heard.mscNotified != nil { XPresentNotifyMSC(d, window, 0, 0, 0, 0) }
        if heard.putCompleted || heard.presentCompleted != nil {
            for e in inFlight { latencies.append(completedAt - e) }
            inFlight.removeAll()
            busy = false
            frames += 1
            let shownAt = heard.presentCompleted.map { $0.ust } ?? completedAt
            completionTimes.append(shownAt)
            // Where in the refresh the copy landed: after the latest vblank.
            if let before = vblanks.last(where: { $0 <= shownAt }), shownAt - before < 1000 { framesNearVblank += 1 }
        }
        if heard.idle { pixmapBusy = false }
        if !busy && !pixmapBusy && !pending.isEmpty {
            let send: Bool
            switch mode {
            case "put":
                send = lastSend.map { t - $0 >= interval } ?? true
            case "present-asap":
                send = true
            default:   // present-late: 3 ms before the predicted vblank
                let step = Int(period)
                let nextVblank = lastVblank + ((t - lastVblank) / step + 1) * step
                send = nextVblank - t <= 3000
            }
            if send {
                // The frame's pixels: a changing colour in the update rectangle.
                let base = memory.assumingMemoryBound(to: UInt32.self)
                let stride = Int(image.pointee.bytes_per_line) / 4
                for y in 100..<164 { for x in 100..<164 { base[y * stride + x] = UInt32(truncatingIfNeeded: frames &* 2654435761) } }
                if mode == "put" {
                    XShmPutImage(d, window, gc, image, 100, 100, 100, 100, 64, 64, 1)
                } else {
                    XPresentPixmap(d, window, pixmap, UInt32(truncatingIfNeeded: frames), 0, update, 0, 0, 0, 0, 0,
                                   UInt32(PresentOptionNone), 0, 0, 0, nil, 0)
                    pixmapBusy = true
                }
                XFlush(d)
                busy = true
                lastSend = t
                sentAt = t
                inFlight = pending
                pending.removeAll()
                continue
            }
        }
        // Sleep until the next event, the next slot, or the server's answer.
        var deadline = Int(nextEvent)
        if !busy && !pending.isEmpty {
            switch mode {
            case "put": deadline = min(deadline, (lastSend ?? t) + interval)
            case "present-late":
                let step = Int(period)
                deadline = min(deadline, lastVblank + ((t - lastVblank) / step + 1) * step - 3000)
            default: break
            }
        }
        if busy { deadline = min(deadline, sentAt + 200_000) }
        // present-late needs the vblanks as they come; the others read them when they
        // wake anyway (waking for them would tie the puts' timing to the vblanks).
        if mode == "present-late" { deadline = min(deadline, lastVblank + Int(period) + 200) }
        waitFor(until: max(t, min(deadline, end + 500_000)))
    }
    let span = Double((completionTimes.last ?? 0) - (completionTimes.first ?? 0)) / 1e6
    let perSecond: Double = span > 0 ? Double(frames - 1) / span : 0
    let share: Int = frames > 0 ? 100 * framesNearVblank / frames : 0
    var line = "presentbench mode=\(mode) frames=\(frames) frames_per_s=\(fixed1(perSecond))"
    line += " latency_p50_us=\(percentile(latencies, 0.5)) latency_p99_us=\(percentile(latencies, 0.99))"
    line += " latency_max_us=\(latencies.max() ?? -1) events=\(latencies.count)"
    line += " frames_within_1ms_after_vblank=\(framesNearVblank) (\(share)%)"
    print(line)
}
XPresentFreeInput(d, window, eventID)
XShmDetach(d, &segment)
XSync(d, 0)
XCloseDisplay(d)
