// inputdrive: a private Xorg (dummy screen) with an absolute pointer and a keyboard
// on Xorg's inputtest driver, and a drive of pointer motions through that pointer, for
// the window benchmark (scripts/window-bench.sh with WINDOW_BENCH_INPUT=inputtest).
//
// xdotool moves the pointer through XTest: each motion is a client's requests and a
// query's reply, which cost the X server as much again as the motion's own delivery
// (BENCHMARKS.md). A mouse does not: its events come from the kernel into the server's
// input thread. The inputtest driver takes them the same way, from a socket, so the X
// server's CPU a motion measured with it is what a real 1000 Hz mouse costs.
//
// usage: inputdrive WIDTHxHEIGHT [RATE_HZ]
//   Starts the server (mode WIDTHxHEIGHT at RATE_HZ, default 60), prints
//   `display=:N pid=P` once its devices are connected, then reads commands on stdin,
//   one a line, and answers each with one line when it is done:
//     drag N HZ X Y W H BUTTON   N motions at HZ a second on a grid of the monotonic
//                                clock, along the window benchmark's zig-zag over the
//                                window at X,Y of W x H; BUTTON 1: button 1 pressed
//                                before and released after (0: a hover). Answers
//                                `drove=N seconds=S late_max_us=L` (L: the latest a
//                                motion was sent after its moment).
//     pauses N X Y               button 1 pressed at (X+40, Y+40), then N single
//                                motions 30 px apart, each after 500 ms of stillness;
//                                released 100 ms after the last. Answers `paused=N`.
//     quit                       stops the server and exits.
//   End of input quits as well; SIGTERM stops the server.
import Foundation
@preconcurrency import Glibc
import InputTest
import XvfbSupport

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("inputdrive: \(message)\n".utf8))
    exit(2)
}

func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

func sleep(untilNanoseconds target: Int64) {
    var moment = timespec(tv_sec: Int(target / 1_000_000_000), tv_nsec: Int(target % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &moment, nil) == EINTR {}
}

/// The window benchmark's zig-zag (scripts/window-bench.sh's awk): motion `i` of a drag
/// over a window `width` x `height`, in window pixels, every point unlike the one before.
func zigZag(_ i: Int, width: Int, height: Int) -> (x: Int, y: Int) {
    let t = i % 2000, row = (i / 2000) % 40
    let forward = (i / 2000) % 2 == 0
    let along = Double(t) * Double(width - 80) / 2000
    let x = forward ? 40 + along : Double(width - 40) - along
    let y = 40 + Double(row) * Double(height - 80) / 40 + Double((i % 7) * 3)
    return (Int(x), Int(y))
}

/// A modeline for a WIDTH x HEIGHT mode at `rate` Hz.
func modeline(width: Int, height: Int, rate: Int) -> String {
    // A mode with total sizes about 1.3 and 1.04 times the visible ones, its clock set
    // for `rate`: the dummy driver takes any timings, and RandR reports clock / totals.
    let hTotal = (width * 134 / 100 + 7) / 8 * 8, vTotal = max(height * 104 / 100, height + 12)
    let clock = Double(hTotal * vTotal * rate) / 1e6
    return "\(width)x\(height)_\(rate) \(String(format: "%.3f", clock)) \(width) \(width + 48) \(width + 48 + 32 * (width / 480)) \(hTotal)"
        + " \(height) \(height + 3) \(height + 8) \(vTotal) -hsync +vsync"
}

let arguments = CommandLine.arguments.dropFirst()
guard let sizeArgument = arguments.first else { fail("usage: inputdrive WIDTHxHEIGHT [RATE_HZ]") }
let sizeParts = sizeArgument.split(separator: "x").compactMap { Int($0) }
guard sizeParts.count == 2, (64...8192).contains(sizeParts[0]), (64...8192).contains(sizeParts[1]) else {
    fail("\(sizeArgument): not a size WIDTHxHEIGHT")
}
let rate = arguments.dropFirst().first.map { Int($0) ?? 0 } ?? 60
guard (10...500).contains(rate) else { fail("\(arguments.dropFirst().first ?? ""): not a refresh rate in 10...500") }

/// The server's pid, for the SIGTERM handler.
nonisolated(unsafe) var serverPID: pid_t = 0
let server: DummyXorg
let pointer: InputTestDevice
do {
    server = try DummyXorg(modeline: modeline(width: sizeParts[0], height: sizeParts[1], rate: rate),
                           inputDevices: [.pointerAbsolute, .keyboard], logVerbosity: 0)
    pointer = try server.device(.pointerAbsolute)
} catch {
    fail("cannot start the server: \(error)")
}
serverPID = server.pid
// SIGTERM (the benchmark's trap) ends the server too; a handler may only kill and _exit.
signal(SIGTERM) { _ in
    kill(serverPID, SIGTERM)
    _exit(1)
}
/// One line on stdout, at once (the benchmark waits for it).
func reply(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
reply("display=\(server.displayName) pid=\(server.pid)")

while let line = readLine() {
    let words = line.split(separator: " ").map(String.init)
    do {
        switch words.first {
        case "drag":
            let n = words.dropFirst().compactMap { Int($0) }
            guard n.count == 7 else { reply("error: drag N HZ X Y W H BUTTON"); continue }
            let (count, hz, x0, y0, width, height, button) = (n[0], n[1], n[2], n[3], n[4], n[5], n[6] != 0)
            try pointer.move(toX: Double(x0 + 40) + 0.5, y: Double(y0 + 40) + 0.5)
            if button { try pointer.button(1, pressed: true) }
            try pointer.sync()
            let interval = 1_000_000_000 / Int64(max(1, hz))
            let start = monotonicNanoseconds()
            var lateMax: Int64 = 0
            for i in 0..<count {
                let moment = start + Int64(i) * interval
                sleep(untilNanoseconds: moment)
                lateMax = max(lateMax, monotonicNanoseconds() - moment)
                let point = zigZag(i, width: width, height: height)
                try pointer.move(toX: Double(x0 + point.x) + 0.5, y: Double(y0 + point.y) + 0.5)
            }
            if button { try pointer.button(1, pressed: false) }
            try pointer.sync()
            let seconds = Double(monotonicNanoseconds() - start) / 1e9
            reply("drove=\(count) seconds=\(String(format: "%.3f", seconds)) late_max_us=\(lateMax / 1000)")
        case "pauses":
            let n = words.dropFirst().compactMap { Int($0) }
            guard n.count == 3 else { reply("error: pauses N X Y"); continue }
            try pointer.move(toX: Double(n[1] + 40) + 0.5, y: Double(n[2] + 40) + 0.5)
            try pointer.button(1, pressed: true)
            for i in 1...max(1, n[0]) {
                usleep(500_000)
                try pointer.move(toX: Double(n[1] + 40 + 30 * i) + 0.5, y: Double(n[2] + 40) + 0.5)
            }
            usleep(100_000)
            try pointer.button(1, pressed: false)
            try pointer.sync()
            reply("paused=\(n[0])")
        case "quit":
            server.stop()
            exit(0)
        default:
            reply("error: unknown command: \(line)")
        }
    } catch {
        reply("error: \(error)")
    }
}
server.stop()
