import ArgumentParser
import CollabServer
import Foundation

/// `serve`'s budgets for fault rules, each account's and the operator's, and the size of a snapshot.
struct ServeLimitOptions: ParsableArguments {

    @Option(
        help: """
            Fault rules an account's admins may hold together; one more of theirs is answered 429 \
            (MOCK_COLLAB_MAX_FAULT_RULES_PER_ACCOUNT).
            """
    )
    var maxFaultRulesPerAccount: Int = EnvironmentDefaults.value("MOCK_COLLAB_MAX_FAULT_RULES_PER_ACCOUNT", 64)

    @Option(
        help: """
            Fault rules the control token, super admins and seed files may hold together, apart from the accounts' \
            (MOCK_COLLAB_MAX_SERVER_FAULT_RULES).
            """
    )
    var maxServerFaultRules: Int = EnvironmentDefaults.value("MOCK_COLLAB_MAX_SERVER_FAULT_RULES", 256)

    @Option(help: "Largest snapshot POST /_mock/v1/snapshot takes, in bytes; a larger one is answered 413 (MOCK_COLLAB_MAX_SNAPSHOT_BYTES).")
    var maxSnapshotBytes: Int = EnvironmentDefaults.value("MOCK_COLLAB_MAX_SNAPSHOT_BYTES", 64 * 1024 * 1024)

    func validate() throws {
        guard (1...10_000).contains(maxFaultRulesPerAccount) else { throw ValidationError("--max-fault-rules-per-account must be 1 to 10000") }
        guard (1...10_000).contains(maxServerFaultRules) else { throw ValidationError("--max-server-fault-rules must be 1 to 10000") }
        guard maxSnapshotBytes >= 64 * 1024 else { throw ValidationError("--max-snapshot-bytes must be at least 65536") }
    }

    /// Puts the limits into `configuration`.
    func apply(to configuration: inout ServerConfiguration) {
        configuration.faultRuleLimits = FaultRuleLimits(perAccount: maxFaultRulesPerAccount, server: maxServerFaultRules)
        configuration.maxSnapshotBytes = maxSnapshotBytes
    }
}
