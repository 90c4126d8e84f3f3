import ArgumentParser
import CollabCore

/// `mock-collab bench queue`: an agent's queue page with the requests spread over a thousand named
/// areas, with few and with many queued conversations in one account. An agent without a filter sees
/// every area's line; the page merges the lines and should cost a look-up per line and about its own
/// entries, whatever the queue holds. The `…PerLine` row answers the same page by reading a page from
/// every line and sorting them, as the queue did before the merge. In process, on the account's state
/// (no HTTP): numbers only mean something from a release build.
struct BenchQueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "Agent queue page cost across many named areas, with few and with many queued conversations in one account."
    )

    @OptionGroup var options: SearchBenchOptions

    /// How many named areas the requests are spread over.
    static let areas = 1_000

    func run() async throws {
        try options.run(account: Self.account(holding:)) { state, _, count, results in
            let accountId = state.accountId
            for limit in [10, 50] {
                results["page\(limit).\(count).medianMicroseconds"] = options.median {
                    state.queue(accountId: accountId, agentPersonId: "agent", namedAreaIds: nil, limit: limit).count
                }
                // A page of each area's line, sorted together: what the page cost before the lines were merged.
                let lines = (0..<min(count, Self.areas)).map { "area-\($0)" }
                results["page\(limit)PerLine.\(count).medianMicroseconds"] = options.median {
                    let perLine = lines.flatMap { area in
                        state.queue(accountId: accountId, agentPersonId: "agent", namedAreaIds: [area], limit: limit).map(\.conversation)
                    }
                    return perLine.sorted { ($0.queuedTimestamp ?? 0, $0.id) < ($1.queuedTimestamp ?? 0, $1.id) }.prefix(limit).count
                }
            }
        }
    }

    /// An account's state holding `count` queued conversations, conversation `i` queued at `i` in area
    /// `i % 1000`.
    static func account(holding count: Int) throws -> (AccountState, Principal) {
        try SearchBenchOptions.account(holding: count) { index, accountId in
            let at = Timestamp(index)
            var conversation = Conversation(
                id: "conversation-\(index)", accountId: accountId, topic: nil, recipient: .init(type: .namedArea, id: "area-\(index % areas)"),
                initialEngagementType: .chatRequest, creationTimestamp: at
            )
            conversation.state = .queued
            conversation.queuedTimestamp = at
            return StoredRecord(encoding: conversation)
        }
    }
}
