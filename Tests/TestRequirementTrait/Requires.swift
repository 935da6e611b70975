// `.requires(need)`: a test or suite that runs only where `need` (a Requirement, nil when
// met) is met, and is skipped otherwise with the need's sentence as the reason, which
// swift-testing prints and scripts/run-tests.py lists (and fails on under CI=true).
// Apart from TestRequirements only because it imports swift-testing, which the support
// modules' bench tools must not link.
@_exported import TestRequirements
import Testing

extension Trait where Self == ConditionTrait {
    public static func requires(_ need: String?) -> Self {
        .enabled(if: need == nil, Comment(rawValue: need ?? ""))
    }
}
