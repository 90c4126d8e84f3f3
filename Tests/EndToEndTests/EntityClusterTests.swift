import CollabClient
import Foundation
import Testing

/// Declared entities in a cluster (PostgreSQL's change log): what one replica writes, another reads,
/// changes and deletes, and the audit entries travel with the writes. Needs `MOCK_COLLAB_TEST_POSTGRES`.
@Suite(
    "Declared entities across replicas", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["MOCK_COLLAB_TEST_POSTGRES"] != nil, "set MOCK_COLLAB_TEST_POSTGRES (scripts/test does)")
)
struct EntityClusterTests {
    @Test("a label created on one replica is read, updated and deleted on another")
    func labelsAcrossReplicas() async throws {
        let (_, replicas) = try await ClusterReplicaTests.replicas(2)
        func call(_ replica: ServerProcess, _ method: String, _ path: String, _ body: String? = nil) async throws -> (Int, [String: Any]) {
            let admin = AdminClient(baseURL: replica.baseURL, credentials: .basic(username: "admin-d", password: "pw")).transport
            let response = try await admin.raw(method, "/app/rest/v4/\(path)", body: body.map { Data($0.utf8) })
            return (response.status, (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:])
        }
        let (created, label) = try await call(replicas[0], "POST", "personlabels/create", #"{"name":"shared","color":"red"}"#)
        #expect(created == 200)
        let id = try #require(label["id"] as? String)
        let (read, copy) = try await call(replicas[1], "GET", "personlabels/\(id)/read")
        #expect(read == 200 && copy["name"] as? String == "shared")
        var changed = copy
        changed["color"] = "blue"
        let text = String(decoding: try JSONSerialization.data(withJSONObject: changed), as: UTF8.self)
        #expect(try await call(replicas[1], "POST", "personlabels/update", text).0 == 200)
        let (_, byName) = try await call(replicas[0], "POST", "personlabels/getByNames", #"["shared"]"#)
        #expect(((byName["items"] as? [[String: Any]])?.first?["color"] as? String) == "blue")
        #expect(try await call(replicas[0], "DELETE", "personlabels/\(id)/delete").0 == 204)
        #expect(try await call(replicas[1], "GET", "personlabels/\(id)/read").0 == 404)
        let byEntity = #"{"searchFilters":[{"field":"ENTITY_ID","operator":{"type":"EQUALS","value":"\#(id)"}}]}"#
        let (_, audit) = try await call(replicas[1], "POST", "audit/search", byEntity)
        #expect((audit["items"] as? [[String: Any]])?.count == 3, "create, update and delete, audited on the replicas that made them")
        try await ClusterReplicaTests.stop(replicas)
    }

    @Test("a global file-upload interceptor (the GLOBAL level) created on one replica is read and updated on another, and survives kill -9")
    func globalInterceptorsAcrossReplicas() async throws {
        let (url, replicas) = try await ClusterReplicaTests.replicas(2)
        func call(_ replica: ServerProcess, _ method: String, _ path: String, _ body: String? = nil) async throws -> (Int, [String: Any]) {
            // The control token is a super admin, which these operations need.
            let root = AdminClient(baseURL: replica.baseURL, credentials: .bearer(ClusterReplicaTests.controlToken)).transport
            let response = try await root.raw(method, "/app/rest/v4/fileuploadglobalinterceptors/\(path)", body: body.map { Data($0.utf8) })
            return (response.status, (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:])
        }
        let (created, interceptor) = try await call(
            replicas[0], "POST", "create", #"{"name":"global","order":1,"webhookEndpoint":"http://127.0.0.1:9/scan","webhookSecret":"s3cret"}"#
        )
        #expect(created == 200)
        let id = try #require(interceptor["id"] as? String)
        let (read, copy) = try await call(replicas[1], "GET", "\(id)/read")
        #expect(read == 200 && copy["webhookSecret"] as? String == "s3cret")
        var changed = copy
        changed["order"] = 7
        let text = String(decoding: try JSONSerialization.data(withJSONObject: changed), as: UTF8.self)
        #expect(try await call(replicas[1], "POST", "update", text).0 == 200)
        #expect(try await call(replicas[0], "GET", "getByName?name=global").1["order"] as? Int == 7)
        for replica in replicas {
            replica.signal(SIGKILL)
            _ = try await replica.waitForExit()
        }
        let fresh = try await ServerProcess(arguments: ["--storage", url, "--cluster", "--control-token", ClusterReplicaTests.controlToken])
        let (again, kept) = try await call(fresh, "GET", "\(id)/read")
        #expect(again == 200 && kept["order"] as? Int == 7 && kept["version"] as? Int == 2)
        try await ClusterReplicaTests.stop([fresh])
    }
}
