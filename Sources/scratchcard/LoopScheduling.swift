@preconcurrency import Glibc
import CLinux

/// The window loop's place in the CPU's queue (issue 19: event-to-put p99 within an
/// interval + 2 ms on a loaded machine). The loop sleeps until the pacer's slot and then
/// works for a few hundred microseconds; on a machine whose cores are busy, what makes
/// a put late is the wait for a core after the wake, not the work. Two requests for the
/// loop's own thread, neither needing a privilege nor taking a larger share of the CPU:
/// - a short time slice (`sched_setattr`'s `sched_runtime`, EEVDF: Linux 6.12 and later
///   wake-up-preempt a thread of longer slice for one of shorter): the loop then runs
///   when it wakes instead of after a compiler's 1-3 ms slice;
/// - a timer slack of 1 us (`PR_SET_TIMERSLACK`) instead of 50 us: the slot's ppoll
///   ends on time.
enum LoopScheduling {
    /// The slice asked for: above the loop's work at a slot (reading and stroking an
    /// interval's events, compositing, the put: 0.1-0.3 ms at 1080p), so the work at a
    /// slot is not cut in two.
    static let timeSliceNanoseconds: UInt64 = 500_000
    static let timerSlackNanoseconds: UInt = 1_000

    /// Asks for both for the calling thread; returns what became of it, for `--verbose`.
    @discardableResult
    static func requestPromptWakeUps() -> String {
        let slice = clinux_request_time_slice(timeSliceNanoseconds)
        let slack = clinux_set_timer_slack(timerSlackNanoseconds)
        let sliceWord = slice == 0
            ? "time slice \(timeSliceNanoseconds / 1000) us"
            : "time slice left as it was (\(String(cString: strerror(slice))))"
        let slackWord = slack == 0 ? "timer slack \(timerSlackNanoseconds / 1000) us" : "timer slack left as it was"
        return sliceWord + ", " + slackWord
    }
}
