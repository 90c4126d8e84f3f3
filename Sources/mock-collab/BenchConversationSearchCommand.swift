import ArgumentParser
import CollabCore
import Foundation

/// `mock-collab bench conversation-search`: `conversations/search` with few and with many conversations
/// in one account, by filter and order, and the account's recorded minutes. A participant, state or id filter is answered from an index and
/// should cost what it finds, whatever the size; so should a page in creation order, end order or by
/// id, and a creation range, read from the orders the conversations are kept in. A topic filter checks every
/// conversation (it is the scan every search was before the look-ups). In process, on the account's
/// state (no HTTP): numbers only mean something from a release build.
struct BenchConversationSearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conversation-search",
        abstract: "Conversation search cost by filter, with few and with many conversations in one account."
    )

    @OptionGroup var options: SearchBenchOptions

    func run() async throws {
        try options.run(account: Self.account(holding:)) { state, admin, count, results in
            let middle = count / 2
            // Visitors take part in 10 conversations each, agents in count / 50; conversation `i` was created at `i`.
            let newestFirst = [SearchOrder(field: "CREATION_TIMESTAMP", descending: true)]
            func page(_ filters: [SearchFilter], _ orderBy: [SearchOrder] = newestFirst) throws -> SearchQuery {
                try SearchQuery(filters: filters, orderBy: orderBy, limit: 10)
            }
            let queries: [(name: String, query: SearchQuery)] = [
                ("visitorParticipant", try page([SearchFilter(field: "PARTICIPANT_PERSON_ID", op: .anyOf(["visitor-\(middle / 10)"]))])),
                ("id", try page([SearchFilter(field: "ID", op: .equals(.string("conversation-\(middle)")))])),
                ("activeState", try page([SearchFilter(field: "STATE", op: .equals(.string("ACTIVE")))])),
                ("topic", try page([SearchFilter(field: "TOPIC", op: .equals(.string("topic \(middle)")))])),
                ("newest", try page([])),
                ("noOrder", try page([], [])),
                ("creationRange", try page(
                    [SearchFilter(field: "CREATION_TIMESTAMP", op: .inRange(from: Int64(middle), to: Int64(middle) + 9))],
                    [SearchOrder(field: "TOPIC")])),
                ("endedNewest", try page([SearchFilter(field: "STATE", op: .equals(.string("ENDED")))])),
                // Two states' lists that together hold every conversation: a walk wins, and their join is never made.
                ("activeOrEndedNewest", try page([SearchFilter(field: "STATE", op: .isIn([.string("ACTIVE"), .string("ENDED")]))])),
                ("lastEnded", try page([], [SearchOrder(field: "END_TIMESTAMP", descending: true)])),
            ]
            for (name, query) in queries {
                results["\(name).\(count).medianMicroseconds"] = try options.median {
                    try state.searchConversations(query, for: admin).items.count
                }
            }
            // The topic query as a scan of every conversation answers it (what it cost before the orders):
            // newest first, the planned search reads the conversations in creation order until it has a page.
            let topic = try page([SearchFilter(field: "TOPIC", op: .equals(.string("topic \(middle)")))])
            results["topicScanned.\(count).medianMicroseconds"] = try options.median {
                try SearchSchemas.conversation.run(topic, over: state.conversations.values, id: \.id).items.count
            }
            // Recorded minutes (every tenth conversation holds a finished recording, one a minute, so they
            // span N/14,400 days): one day's, and all of them, from the minutes kept by day; and all of
            // them summed over the recorded conversations, as before the index.
            let day = RecordedMinutesIndex.dayMillis
            results["recordedMinutesOneDay.\(count).medianMicroseconds"] = options.median {
                Int(state.recordedMinutes(from: 0, to: day)) + 1
            }
            // From noon to noon: two edge days, whose recordings are read one by one.
            results["recordedMinutesNoonToNoon.\(count).medianMicroseconds"] = options.median {
                Int(state.recordedMinutes(from: day / 2, to: day + day / 2)) + 1
            }
            results["recordedMinutesAll.\(count).medianMicroseconds"] = options.median {
                Int(state.recordedMinutes(from: nil, to: nil)) + 1
            }
            // As before: the recorded conversations (an index's list of ids, here made once) read and summed.
            let recorded = state.conversations.values.filter { !($0.recordings ?? []).isEmpty }.map(\.id)
            results["recordedMinutesSummed.\(count).medianMicroseconds"] = options.median {
                recorded.compactMap { state.conversations[$0] }.reduce(0) { total, conversation in
                    total + (conversation.recordings ?? []).reduce(0) { $0 + Int($1.recordedMinutes) }
                } + 1
            }
            // The last ended first, as a scan answered it before conversations were kept in end order.
            let lastEnded = try page([], [SearchOrder(field: "END_TIMESTAMP", descending: true)])
            results["lastEndedScanned.\(count).medianMicroseconds"] = try options.median {
                try SearchSchemas.conversation.run(lastEnded, over: state.conversations.values, id: \.id).items.count
            }
        }
    }

    /// An account's state holding `count` conversations, one in a thousand active and the rest ended, and
    /// an admin of it. Conversation `i` is about visitor `i / 10`, was taken by agent `i % 50` and has
    /// topic `i`; every tenth holds a finished recording of 90 s, started at minute `i / 10`.
    static func account(holding count: Int) throws -> (AccountState, Principal) {
        let recordingTemplate = try JSONDecoder().decode(
            ConversationRecording.self, from: Data(#"{"id":"","recordingType":"AUDIO","startTimestamp":0,"callIds":[]}"#.utf8))
        return try SearchBenchOptions.account(holding: count) { index, accountId in
            let at = Timestamp(index)
            var conversation = Conversation(
                id: "conversation-\(index)", accountId: accountId, topic: "topic \(index)", recipient: .init(type: .namedArea, id: "area"),
                initialEngagementType: .chatRequest, creationTimestamp: at
            )
            if index % 1000 == 0 {
                conversation.state = .active
            } else {
                conversation.state = .ended
                conversation.endTimestamp = at
            }
            conversation.participants = [
                Participation(personId: "visitor-\(index / 10)", type: .contextPerson, joinedTimestamp: at),
                Participation(personId: "agent-\(index % 50)", type: .assignedAgent, joinedTimestamp: at),
            ]
            if index % 10 == 0 {
                var recording = recordingTemplate
                recording.id = "recording-\(index)"
                recording.startTimestamp = Timestamp(index / 10) * 60_000
                recording.endTimestamp = recording.startTimestamp + 90_000
                conversation.recordings = [recording]
            }
            return StoredRecord(encoding: conversation)
        }
    }
}
