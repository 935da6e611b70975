@preconcurrency import Glibc
import Threads
import Synchronization

/// SIGTERM, SIGINT and SIGHUP end the window cleanly: the handler only writes the
/// signal's number into a pipe (async-signal-safe), and the run loop, which polls that
/// pipe beside the X connection, finishes as if the user had quit.
enum TerminationSignals {
    /// The pipe's write end, for the handler (a C function that captures nothing).
    private static let writeEnd = Atomic<Int32>(-1)
    /// The pipe's read end, for the run loop.
    private static let readEnd = Atomic<Int32>(-1)

    /// Installs the handlers once; returns the descriptor to poll.
    static func install() -> Int32 {
        if readEnd.load(ordering: .relaxed) >= 0 { return readEnd.load(ordering: .relaxed) }
        guard let ends = wakePipe() else { return -1 }
        readEnd.store(ends.read, ordering: .relaxed)
        writeEnd.store(ends.write, ordering: .relaxed)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            var number = UInt8(truncatingIfNeeded: signal)
            _ = write(TerminationSignals.writeEnd.load(ordering: .relaxed), &number, 1)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        var handled = sigset_t()
        sigemptyset(&handled)
        for signal in [SIGTERM, SIGINT, SIGHUP] {
            sigaction(signal, &action, nil)
            sigaddset(&handled, signal)
        }
        // A parent may have started us with these blocked (some process launchers do):
        // they must get through.
        sigprocmask(SIG_UNBLOCK, &handled, nil)
        return ends.read
    }

    /// The first signal that arrived since the last call, if any.
    static func take() -> Int32? {
        var number: UInt8 = 0
        let fd = readEnd.load(ordering: .relaxed)
        guard fd >= 0, read(fd, &number, 1) == 1 else { return nil }
        return Int32(number)
    }

    static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }
}
