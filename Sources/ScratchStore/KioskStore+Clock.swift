import Foundation
import ScratchCore
import CardRules

/// The times the store records (a deal's `shown_at`, an outcome's `ended_at`) come from
/// the wall clock, which on a kiosk may jump: a board with no real-time clock boots in the
/// past and jumps when the network gives the time, or the other way. They are kept in
/// order: a time earlier than the latest one recorded is recorded as that latest one, so
/// that `shown_at` and `ended_at` never go back in the order of the deals (and durations
/// between them are never negative). A clock that jumped ahead stays ahead in the store
/// until the true time catches up: the order is kept, not the truth, which nobody knows.
final class RecordedClock {
    /// The latest time in the store; read from it at the first use.
    var latest: Double?
}

extension KioskStore {
    /// `time` (wall-clock seconds), or the latest time the store recorded if that is later;
    /// the latest one from now on. Inside the transaction that records it.
    func orderedTime(_ time: Double) throws(StoreError) -> Double {
        let latest: Double
        if let known = recordedClock.latest {
            latest = known
        } else {
            let query = try connection.prepare("""
                SELECT max(coalesce((SELECT max(shown_at) FROM deals), 0), coalesce((SELECT max(ended_at) FROM outcomes), 0))
                """)
            latest = try query.step() ? query.real(0) : 0
        }
        let ordered = Swift.max(time, latest)
        recordedClock.latest = ordered
        return ordered
    }
}
