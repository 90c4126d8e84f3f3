import CollabClient
import CollabCore
import CollabStore
import NIOCore
import CollabWire
import Foundation
import HTTPTypes
import Testing

@testable import CollabServer

/// The request journal is bounded per entry, in total bytes and per read, whatever anonymous callers send.
@Suite("Journal bounds", .serialized)
struct JournalBoundsTests {
    /// Sends `count` anonymous GETs of `path` with a `queryBytes`-long query, a few at a time.
    func flood(_ server: InProcessServer, count: Int, queryBytes: Int) async throws {
        let query = "q=" + String(repeating: "x", count: queryBytes - 2)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in stride(from: worker, to: count, by: 8) {
                        _ = try await server.call(.get, "/healthz?n=\(index)&\(query)")
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("4,000 requests with a 60 KB query: entries cut to 2 KiB and marked, the journal within its byte bound, reads bounded")
    func sixtyKilobyteQueries() async throws {
        try await InProcessServer.with(journalCapacity: 10_000, configure: { $0.journalMaxBytes = 4 * 1024 * 1024 }) { server in
            try await flood(server, count: 4_000, queryBytes: 60 * 1024)
            let page = try await server.control.journal(JournalFilter(path: "/healthz", limit: 100_000))
            #expect(page.maxBytes == 4 * 1024 * 1024)
            #expect(page.bytes <= page.maxBytes / 4, "requests that name no account hold one account's share: a quarter")
            #expect(page.bytes > page.maxBytes / 8, "the bound is what limits the journal here, not the count")
            #expect(page.size < 4_000, "older entries went to stay within the byte bound")
            #expect(!page.entries.isEmpty)
            for entry in page.entries {
                #expect((entry.query?.utf8.count ?? 0) <= 2 * 1024)
                #expect(entry.truncated == true)
            }
            // One read holds at most 4 MiB of entries, counted the journal's way.
            let read = page.entries.reduce(0) { $0 + 128 + $1.method.utf8.count + $1.path.utf8.count + ($1.query?.utf8.count ?? 0) }
            #expect(read <= 4 * 1024 * 1024)
            let stats = try await server.control.stats()
            #expect(stats.journalEntries < 4_000)
        }
    }

    @Test("a read stops at its byte bound and says so; short entries are not marked")
    func readBound() async throws {
        try await InProcessServer.with(journalCapacity: 10_000, configure: { $0.journalMaxBytes = 32 * 1024 * 1024 }) { server in
            // 2,500 entries of ~2.2 KB: ~5.5 MB held (the requests naming no account may hold a quarter of
            // 32 MiB), more than one read's 4 MiB.
            try await flood(server, count: 2_500, queryBytes: 3 * 1024)
            let page = try await server.control.journal(JournalFilter(path: "/healthz", limit: 100_000))
            #expect(page.size >= 2_500)
            #expect(page.truncated)
            #expect(page.entries.count < 2_500)
            #expect(page.entries.last?.query?.hasPrefix("n=") == true, "the newest entries are kept")
            try await server.control.clearJournal()
            _ = try await server.transport(.none).raw("GET", "/healthz", query: [("short", "1")])
            let short = try await server.control.journal(JournalFilter(path: "/healthz"))
            #expect(short.entries.first?.truncated == nil)
            #expect(short.truncated == false)
        }
    }

    static func entry(_ account: String?, query: String = "") -> JournalEntry {
        JournalEntry(
            id: 0, timestamp: 0, method: "GET", path: "/p", query: query.isEmpty ? nil : query, status: 200, durationMicros: 1, accountId: account,
            userId: nil)
    }

    @Test("each account keeps its own entries: a flood of one never pushes out another's, and its reset is its own")
    func perAccount() {
        let journal = RequestJournal(capacity: 100)
        for _ in 0..<3 { journal.record(Self.entry("quiet")) }
        for _ in 0..<1_000 { journal.record(Self.entry("noisy")) }
        for _ in 0..<200 { journal.record(Self.entry(nil)) }
        #expect(journal.entries(matching: JournalFilter(accountId: "quiet")).entries.count == 3)
        #expect(!journal.entries(matching: JournalFilter(accountId: "quiet", after: 0)).evicted, "the quiet account lost nothing")
        let behind = journal.entries(matching: JournalFilter(accountId: "noisy", after: 0))
        #expect(behind.evicted && behind.entries.count == 100, "reading on from before what the bounds pushed out says so")
        let caughtUp = journal.entries(matching: JournalFilter(accountId: "noisy", after: behind.entries[0].id))
        #expect(!caughtUp.evicted && caughtUp.entries.count == 99)
        #expect(journal.held(accountId: "noisy").count == 100, "the flood keeps its own newest 100")
        // An account's bounds: its entries' and, apart, its unproven refusals' (a quarter of each).
        #expect(
            journal.held(accountId: "quiet")
                == (3, 3 * RequestJournal.size(of: Self.entry("quiet")), 125, journal.accountMaxBytes + journal.refusalMaxBytes))
        #expect(journal.count == 203, "three rings: quiet's 3, and 100 each of noisy and of the requests that name no account")

        // A read for all merges the rings by id: the newest `limit`, oldest first, and pages read on without a gap.
        let newest = journal.entries(matching: JournalFilter(limit: 150))
        #expect(newest.truncated && newest.entries.count == 150)
        #expect(newest.entries.map(\.id) == newest.entries.map(\.id).sorted())
        #expect(newest.entries.suffix(100).allSatisfy { $0.accountId == nil }, "the newest 100 kept of those naming no account")
        #expect(newest.entries.prefix(50).allSatisfy { $0.accountId == "noisy" }, "then the flood's newest")
        var paged: [JournalEntry] = []
        var cursor: Int64 = 0
        while true {
            let page = journal.entries(matching: JournalFilter(limit: 7, after: cursor))
            paged += page.entries
            guard page.truncated, let last = page.entries.last else { break }
            cursor = last.id
        }
        #expect(paged.count == 203 && paged.map(\.id) == paged.map(\.id).sorted())
        #expect(paged.prefix(3).allSatisfy { $0.accountId == "quiet" })

        let bytes = journal.bytes
        journal.removeAll(accountId: "noisy")
        #expect(journal.held(accountId: "noisy").count == 0 && journal.held(accountId: "quiet").count == 3)
        #expect(journal.bytes == bytes - 100 * RequestJournal.size(of: Self.entry("noisy")), "the server's total gives back the account's bytes")
        journal.clear()
        #expect(journal.count == 0 && journal.bytes == 0)
    }

    @Test("past the server's byte ceiling the largest account gives up its oldest; a small one keeps its entries")
    func serverCeiling() {
        let journal = RequestJournal(capacity: 100_000, maxBytes: 256 * 1024)
        let query = String(repeating: "q", count: 1_000)
        for _ in 0..<5 { journal.record(Self.entry("small", query: query)) }
        for account in 0..<8 {
            for _ in 0..<200 { journal.record(Self.entry("big\(account)", query: query)) }
        }
        #expect(journal.bytes <= journal.maxBytes)
        #expect(journal.bytes > journal.maxBytes - 64 * 1024 - RequestJournal.size(of: Self.entry("big0", query: query)))
        #expect(journal.held(accountId: "small").count == 5, "the smallest account lost nothing")
        for account in 0..<8 {
            #expect(journal.held(accountId: "big\(account)").bytes <= journal.accountMaxBytes)
        }
        let counted = (0..<8).reduce(journal.held(accountId: "small").bytes) { $0 + journal.held(accountId: "big\($1)").bytes }
        #expect(counted == journal.bytes, "the total is the sum of the rings")
    }

    @Test("past the byte ceiling a request visits the one ring holding the most, however many accounts have entries")
    func ceilingVisitsTheLargestOnly() {
        let journal = RequestJournal(capacity: 100_000, maxBytes: 256 * 1024)
        let query = String(repeating: "q", count: 1_000)
        for account in 0..<300 { journal.record(Self.entry("small\(account)")) }
        var rounds = 0
        for account in 0..<8 {
            for _ in 0..<200 {
                let visits = journal.trimVisits
                let past = journal.bytes + RequestJournal.size(of: Self.entry("big\(account)", query: query)) > journal.maxBytes
                journal.record(Self.entry("big\(account)", query: query))
                // One round frees 64 KiB, more than one entry adds: at most one ring per request.
                #expect(journal.trimVisits - visits <= 1)
                if past { rounds += 1 }
            }
        }
        #expect(journal.trimVisits > 0 && journal.trimVisits <= rounds)
        #expect(journal.bytes <= journal.maxBytes)
        #expect((0..<300).allSatisfy { journal.held(accountId: "small\($0)").count == 1 }, "the smallest accounts lost nothing")
        journal.removeAll(accountId: "big7")
        journal.clear()
        #expect(journal.count == 0 && journal.bytes == 0)
    }

    @Test("a stranger's wrong passwords for an account's user push out only such refusals, never the account's own entries")
    func unprovenRefusalsKeptApart() async throws {
        try await InProcessServer.with(seed: queueSeed, journalCapacity: 40) { server in
            let admin = InProcessServer.basic("admin-d", "pw")
            for _ in 0..<30 { #expect(try await server.call(.get, "/app/rest/v4/accounts/getCurrentAccount", authorization: admin).status == .ok) }
            let accountId = try await server.admin("admin-d", "pw").accounts.current().id
            // 200 guesses naming the account's admin: anyone can send them.
            let guess = InProcessServer.basic("admin-d", "guess")
            for index in 0..<200 {
                let refused = try await server.call(.get, "/app/rest/v4/accounts/getCurrentAccount?guess=\(index)", authorization: guess)
                #expect(refused.status == .unauthorized)
            }
            let page = try await server.control.journal(JournalFilter(accountId: accountId, limit: 1_000))
            let own = page.entries.filter { $0.status == 200 && $0.path == "/app/rest/v4/accounts/getCurrentAccount" }
            #expect(own.count >= 30, "every one of the account's own requests is still there")
            let guesses = page.entries.filter { $0.status == 401 }
            #expect(guesses.count == 10, "a quarter of the capacity: the newest refusals")
            #expect(guesses.map(\.query) == (190..<200).map { "guess=\($0)" }, "oldest first, the newest kept")
            #expect(page.capacity == 50 && page.size <= 50)
            #expect(page.entries.map(\.id) == page.entries.map(\.id).sorted(), "one read, in id order")
        }
    }
}
