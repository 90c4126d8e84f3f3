import CollabClient
import CollabCore
import CollabServer
import CollabStore
import NIOCore
import CollabWire
import Foundation
import HTTPTypes
import Testing

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
            #expect(page.bytes <= page.maxBytes)
            #expect(page.bytes > page.maxBytes / 2, "the bound is what limits the journal here, not the count")
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
        try await InProcessServer.with(journalCapacity: 10_000, configure: { $0.journalMaxBytes = 16 * 1024 * 1024 }) { server in
            // 2,500 entries of ~2.2 KB: ~5.5 MB held, more than one read's 4 MiB.
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
}
