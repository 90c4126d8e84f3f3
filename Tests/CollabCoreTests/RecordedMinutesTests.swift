@testable import CollabCore
import Testing

/// `getRecordedMinutes` reads the minutes kept by day: for any range it answers what summing every
/// finished recording that started in it would, through recordings finishing, conversations changing
/// and conversations deleted.
@Suite("Recorded minutes by day")
struct RecordedMinutesTests {
    @Test("any range, day edges included, answers as a sum over every recording")
    func sameAsSum() {
        var numbers = SeededNumbers(state: 9)
        func next(_ bound: Int64) -> Int64 { numbers.next(below: bound) }
        let day = RecordedMinutesIndex.dayMillis
        var index = RecordedMinutesIndex()
        var conversations: [String: Conversation] = [:]
        func recording(at start: Timestamp, finished: Bool) -> ConversationRecording {
            ConversationRecording(
                id: "r\(start)", recordingType: .audio, startTimestamp: start, endTimestamp: finished ? start + next(600_000) : nil, callIds: [])
        }
        // 300 conversations over ten days, some recordings still running; then a third changed and a tenth deleted.
        for number in 0..<300 {
            var conversation = Conversation(
                id: "c\(number)", accountId: "a", topic: nil, recipient: .init(type: .account, id: "a"), initialEngagementType: .chatRequest,
                creationTimestamp: 0)
            conversation.recordings = (0..<Int(next(3))).map { _ in recording(at: next(10 * day), finished: next(5) != 0) }
            index.update(old: nil, new: conversation)
            conversations[conversation.id] = conversation
        }
        for id in conversations.keys.sorted() where next(3) == 0 {
            var changed = conversations[id]!
            changed.recordings = (changed.recordings ?? []).map { recording in
                var finished = recording
                if finished.endTimestamp == nil { finished.endTimestamp = recording.startTimestamp + 61_000 }
                return finished
            } + [recording(at: next(10 * day), finished: true)]
            index.update(old: conversations[id], new: changed)
            conversations[id] = changed
        }
        for id in conversations.keys.sorted() where next(10) == 0 {
            index.update(old: conversations[id], new: nil)
            conversations[id] = nil
        }
        func sum(_ from: Timestamp?, _ to: Timestamp?) -> Int64 {
            conversations.values.flatMap { $0.recordings ?? [] }.reduce(0) { total, recording in
                let inRange = recording.startTimestamp >= (from ?? .min) && recording.startTimestamp < (to ?? .max)
                return total + (inRange ? recording.recordedMinutes : 0)
            }
        }
        #expect(sum(nil, nil) > 0)
        let bounds: [Timestamp?] = [nil, -day, 0, 1, day - 1, day, day + 1, 3 * day + 12_345, 5 * day, 10 * day - 1, 10 * day, 40 * day, .min, .max]
        for from in bounds {
            for to in bounds {
                #expect(index.minutes(from: from, to: to) == sum(from, to), "[\(String(describing: from)), \(String(describing: to)))")
            }
        }
        #expect(RecordedMinutesIndex.day(of: -1) == -1 && RecordedMinutesIndex.day(of: 0) == 0 && RecordedMinutesIndex.day(of: day) == 1)
        // A recording on the last day the timestamps hold: its day's end does not overflow.
        var late = RecordedMinutesIndex()
        var last = Conversation(
            id: "late", accountId: "a", topic: nil, recipient: .init(type: .account, id: "a"), initialEngagementType: .chatRequest,
            creationTimestamp: 0)
        last.recordings = [ConversationRecording(id: "r", recordingType: .audio, startTimestamp: .max - 120_000, endTimestamp: .max - 1, callIds: [])]
        late.update(old: nil, new: last)
        #expect(late.minutes(from: nil, to: nil) == 2 && late.minutes(from: .max - 1, to: .max) == 0 && late.minutes(from: 0, to: .max) == 2)
        for (id, conversation) in conversations { index.update(old: conversation, new: nil); conversations[id] = nil }
        #expect(index == RecordedMinutesIndex(), "deleting every conversation leaves nothing behind")
    }
}
