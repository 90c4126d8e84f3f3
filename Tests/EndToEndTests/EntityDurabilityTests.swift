import CollabClient
import Foundation
import Testing

/// Declared entities durable across `kill -9` once acknowledged, with their audit entries (the server
/// binary as a process on SQLite).
@Suite("Declared entities: durability", .serialized)
struct EntityDurabilityTests {
    @Test("every acknowledged entity write survives kill -9")
    func killNine() async throws {
        let directory = try temporaryDirectory()
        let storage = "sqlite:\(directory.path)/state.sqlite"
        let first = try await ServerProcess(arguments: ["--storage", storage])
        let admin = AdminClient(baseURL: first.baseURL, credentials: .basic(username: "admin", password: "admin")).transport
        let acknowledged = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<50 {
                group.addTask {
                    let body = Data(#"{"domainName":"https://d\#(index).example"}"#.utf8)
                    let response = try await admin.raw("POST", "/app/rest/v4/domains/create", body: body)
                    return try #require((try JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["id"] as? String)
                }
            }
            var ids: [String] = []
            for try await id in group { ids.append(id) }
            return ids
        }
        first.signal(SIGKILL)
        #expect(try await first.waitForExit() != 0)

        let second = try await ServerProcess(arguments: ["--storage", storage])
        let reopened = AdminClient(baseURL: second.baseURL, credentials: .basic(username: "admin", password: "admin")).transport
        let body = try JSONSerialization.data(withJSONObject: acknowledged)
        let stored = try await reopened.raw("POST", "/app/rest/v4/domains/readMultiple", body: body)
        let ids = (try JSONSerialization.jsonObject(with: stored.body) as? [String: Any])?["items"] as? [[String: Any]]
        #expect(Set(ids?.compactMap { $0["id"] as? String } ?? []) == Set(acknowledged))
        let audit = try await reopened.raw("POST", "/app/rest/v4/audit/search", body: Data(#"{"limit":1000}"#.utf8))
        let entries = (try JSONSerialization.jsonObject(with: audit.body) as? [String: Any])?["items"] as? [[String: Any]]
        let audited = entries?.filter { $0["entityType"] as? String == "Domain" }.count ?? 0
        #expect(audited >= acknowledged.count, "the audit entries were stored with the writes")
        second.signal(SIGTERM)
        #expect(try await second.waitForExit() == 0)
    }
}
