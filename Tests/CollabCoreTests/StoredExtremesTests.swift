@testable import CollabCore
import Foundation
import Testing

/// Values a restored snapshot, a stored setting or an upstream answer may hold anywhere in their type's
/// range: the arithmetic the server does with them saturates, never traps, and an admin's type pattern
/// that backtracks without end gives up instead of holding its caller.
@Suite("Stored extremes")
struct StoredExtremesTests {
    @Test("saturating sums, differences and products hold at the bounds")
    func saturating() {
        #expect(Int64.max.adding(saturating: 1) == .max && Int64.min.adding(saturating: -1) == .min)
        #expect(Int64.min.subtracting(saturating: 1) == .min && Int64.max.subtracting(saturating: -1) == .max)
        #expect(Int64.max.multiplied(saturating: 2) == .max && Int64.max.multiplied(saturating: -2) == .min)
        #expect(Int64.min.multiplied(saturating: -1) == .max)
        #expect(Int(40).adding(saturating: 2) == 42 && Int64(6).multiplied(saturating: -7) == -42 && Int64(1).subtracting(saturating: 3) == -2)
    }

    @Test("the clock shows instants from 1970 to the end of 9999, whatever the stored setting")
    func clockBounds() throws {
        let system: Timestamp = 1_800_000_000_000
        #expect(ClockSetting(offset: .max, frozenAt: nil).instant(system: system) == ClockSetting.instants.upperBound)
        #expect(ClockSetting(offset: .min, frozenAt: nil).instant(system: system) == 0)
        #expect(ClockSetting(offset: 0, frozenAt: .min).instant(system: system) == 0)
        #expect(ClockSetting(offset: 5, frozenAt: nil).instant(system: system) == system + 5)
        #expect(throws: CollabError.self) { try ClockSetting(offset: .max, frozenAt: nil).check(system: system) }
        #expect(throws: CollabError.self) { try ClockSetting(offset: -system - 1, frozenAt: nil).check(system: system) }
        #expect(throws: CollabError.self) { try ClockSetting(offset: 0, frozenAt: ClockSetting.instants.upperBound + 1).check(system: system) }
        try ClockSetting(offset: -system, frozenAt: nil).check(system: system)
        try ClockSetting(offset: 0, frozenAt: ClockSetting.instants.upperBound).check(system: system)
    }

    @Test("recordings, deadlines, bot offers and versions at the ends of the range")
    func storedTimes() {
        var recording = ConversationRecording(id: "r", recordingType: .audioVideo, startTimestamp: .min, endTimestamp: .max, callIds: [])
        #expect(recording.duration(at: 0) == .max && recording.totalSize(at: 0) == .max / 1000 && recording.recordedMinutes > 0)
        recording.endTimestamp = nil
        recording.startTimestamp = .max
        #expect(recording.duration(at: .min) == 0 && recording.totalSize(at: 0) == 0 && recording.recordedMinutes == 0)

        var deadlines = DeadlineQueue()
        deadlines.schedule(.keyRotation("device"), at: .max)
        deadlines.schedule(.clientIdle("client"), at: .min)
        #expect(deadlines.next(keyRotationInterval: .max, clientIdleTimeout: .max) == .min.adding(saturating: .max))
        #expect(deadlines.takeDue(now: .min, keyRotationInterval: .max, clientIdleTimeout: .max) == [.clientIdle("client")])
        #expect(deadlines.takeDue(now: .max, keyRotationInterval: .min, clientIdleTimeout: 1) == [.keyRotation("device")])

        var bot = DialogBot(name: "slow", webhookEndpoint: "https://bots.example/hook")
        bot.outboundTimeoutMillis = 5_000_000_000_000_000_000
        let dialog = BotDialog(id: "d", accountId: "a", bot: bot, conversationId: "c", counterpartPersonId: "p", creationTimestamp: 1_000)
        #expect(dialog.offerExpiresAt == .max)
    }

    @Test("a type pattern that backtracks without end gives up and reviews the file; ordinary patterns decide as before")
    func backtrackingPattern() {
        func interceptor(_ pattern: String) -> FileUploadInterceptor {
            FileUploadInterceptor(
                id: "i", accountId: "a", name: "n", order: 0, mimeTypeRegex: pattern, status: .active, endpoint: "https://x.example",
                apiVersion: "V4", secret: "s", creationTimestamp: 0, modificationTimestamp: 0, version: 1)
        }
        // Nested quantifiers over a long run the pattern cannot end: about 2^250 ways to try.
        let hostile = "text/" + String(repeating: "a", count: 250) + "!"
        #expect(interceptor("text/(a+)+").reviews(hostile), "given up, and reviewed")
        #expect(interceptor("image/.*").reviews("image/png") && !interceptor("image/.*").reviews("text/plain"))
        #expect(interceptor("text/(plain|csv)").reviews("text/csv") && !interceptor("text/(plain|csv)").reviews("text/csvx"))
    }

    @Test("a type pattern is validated as it is matched: one that compiles alone but not anchored is a 400; one stored before reviews")
    func patternValidatedAnchored() throws {
        func input(_ pattern: String) -> FileUploadInterceptorInput {
            FileUploadInterceptorInput(name: "n", order: 0, mimeTypeRegex: pattern, endpoint: "https://x.example")
        }
        // `\Q` without `\E` quotes the rest, the anchoring group's end too; `(?x)` makes `#` start a comment.
        for pattern in [#"\Qapplication/pdf"#, "(?x)application/pdf # the PDFs"] {
            #expect((try? NSRegularExpression(pattern: pattern)) != nil, "compiles alone: \(pattern)")
            #expect(throws: CollabError.self, "\(pattern)") { try input(pattern).validateOwnFields() }
        }
        try input(#"application/(pdf|zip)"#).validateOwnFields()
        let stored = FileUploadInterceptor(
            id: "i", accountId: "a", name: "n", order: 0, mimeTypeRegex: #"\Qapplication/pdf"#, status: .active, endpoint: "https://x.example",
            apiVersion: "V4", secret: "s", creationTimestamp: 0, modificationTimestamp: 0, version: 1)
        #expect(stored.reviews("application/pdf") && stored.reviews("image/png"), "a pattern that cannot be matched reviews every file")
    }
}
