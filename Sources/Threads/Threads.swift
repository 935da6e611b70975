@preconcurrency import Glibc

// Threads and a condition on pthreads directly, rather than Foundation's Thread and
// NSCondition: those live in swift-corelibs-foundation, and one use of anything from it
// links all of it into the static binary, ICU's data included (58 MB instead of 14 MB;
// BENCHMARKS.md, "Installing"). FoundationEssentials (Data, JSONDecoder, FileManager)
// does not bring it. The program, the sound room and the store all use these.

/// Runs `work` on a new detached thread, which ends with the work.
public func detachThread(_ work: @escaping @Sendable () -> Void) {
    final class Box { let work: @Sendable () -> Void; init(_ work: @escaping @Sendable () -> Void) { self.work = work } }
    let box = Unmanaged.passRetained(Box(work)).toOpaque()
    var thread = pthread_t()
    let started = pthread_create(&thread, nil, { raw in
        Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().work()
        return nil
    }, box)
    precondition(started == 0, "pthread_create failed: \(started)")   // out of threads: nothing sane to do
    pthread_detach(thread)
}

/// NSCondition's lock, unlock, wait, signal and broadcast, over a pthread mutex and
/// condition.
public final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }
    /// Waits for a signal, the lock held (released while waiting).
    public func wait() { pthread_cond_wait(condition, mutex) }
    public func signal() { pthread_cond_signal(condition) }
    public func broadcast() { pthread_cond_broadcast(condition) }

    /// Runs `body` with the lock held.
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A pipe for waking the run loop from elsewhere (a signal handler, a worker thread): a
/// byte written to `write` makes `read` readable beside the X connection. Both ends are
/// non-blocking (a full pipe drops the byte, an empty one reads nothing) and closed on
/// exec. Nil when no pipe can be made.
public func wakePipe() -> (read: Int32, write: Int32)? {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return nil }
    for end in ends {
        _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        _ = fcntl(end, F_SETFL, O_NONBLOCK)
    }
    return (ends[0], ends[1])
}
