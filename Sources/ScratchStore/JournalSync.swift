@preconcurrency import Glibc
import Dispatch
import Synchronization

/// Syncs a store's WAL file to the disk off the writer's thread, so that commits of
/// strokes need not wait for the disk.
///
/// Why: a commit with `synchronous=FULL` returns only once the WAL is synced, and on
/// this project's own machine a sync now and then takes 150-450 ms (measured in the
/// kill test). Strokes queued behind such a commit are not yet written when the program
/// dies, so a kill -9 lost scratches made half a second before it. A stroke batch is now
/// committed with `synchronous=NORMAL`: its frames are in the WAL file when the commit
/// returns (a kill -9 keeps them: the kernel has them), and this syncer puts them on
/// the disk (a power cut keeps them) as soon as the disk allows. Requests that come
/// while a sync runs are served by one more sync after it. Deals, outcomes and reveals
/// stay `FULL`: synced before their commit returns.
///
/// A torn WAL at a power cut is safe: SQLite checks each frame's checksum on recovery and
/// keeps the transactions up to the last whole commit.
final class JournalSync: Sendable {
    private let queue = DispatchQueue(label: "scratchcard.store-journal-sync", qos: .utility)
    /// What the queued syncs use, apart from this object: the last sync may run after
    /// the store (and this) are gone, and must not wait for itself.
    private let target: Target

    init(databasePath: String) {
        target = Target(walPath: databasePath + "-wal")
    }

    /// Asks for the WAL as it is now to reach the disk soon; returns at once.
    func request() {
        let target = self.target
        guard !target.queued.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async {
            // Cleared before the sync: frames written after this point get a sync of their own.
            target.queued.store(false, ordering: .releasing)
            target.sync()
        }
    }

    /// Waits for every sync asked for so far (tests). Never from the queue itself.
    func waitForSyncs() { queue.sync {} }

    /// How many syncs have run.
    var syncs: Int { target.count.load(ordering: .relaxed) }

    private final class Target: Sendable {
        let walPath: String
        /// A sync is queued and has not started: a request then needs nothing more.
        let queued = Atomic<Bool>(false)
        let count = Atomic<Int>(0)
        /// The WAL's descriptor, opened at the first sync (the file exists once a write
        /// has gone through WAL mode); -1 until then, or when it cannot be opened.
        private let descriptor = Mutex<Int32>(-1)

        init(walPath: String) { self.walPath = walPath }

        deinit { descriptor.withLock { fd in if fd >= 0 { close(fd) } } }

        func sync() {
            descriptor.withLock { fd in
                if fd < 0 { fd = open(walPath, O_RDONLY | O_CLOEXEC) }
                guard fd >= 0 else { return }
                _ = fdatasync(fd)
            }
            count.add(1, ordering: .relaxed)
        }
    }
}
