import CollabClient
import CollabCore
import CollabStore
import Foundation
import HTTPTypes
import Testing

@testable import CollabServer

/// `/fileuploadglobalinterceptors/…` in router mode: the spec's roles, bad input as a 400 naming the
/// field, the vendor's 404, the stored list (versions, names, search) and server snapshots.
@Suite("Global file-upload interceptors: roles, bad input, storage")
struct GlobalFileInterceptorTableTests {
    static let prefix = "/fileuploadglobalinterceptors/"

    /// The tag's nine operations, each with an unknown id and an empty body; the role is the spec's.
    static var operations: [RoleRulesTests.Operation] {
        VendorOperations.all.filter { $0.path.hasPrefix(prefix) }.map { .init(vendor: $0, takesList: false) }
    }

    static let valid = #"{"name":"scan-all","order":1,"webhookEndpoint":"http://127.0.0.1:9/scan","webhookSecret":"global-secret"}"#

    @Test("the table covers the tag's nine operations, none of them listed as unrouted")
    func coverage() {
        #expect(Self.operations.count == 9)
        #expect(!UnroutedOperations.owners.keys.contains { $0.contains(Self.prefix) })
    }

    @Test("each role may call exactly the operations at or below the spec's role; probing changes nothing", .serialized, arguments: operations)
    func roles(operation: RoleRulesTests.Operation) async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in try await RoleRulesTests.expectRoles(operation, on: server) }
    }

    @Test("bad input is a 400 naming the field; a missing id, name or token is the vendor's 404; nothing is stored")
    func badInputAndMissingIds() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let before = try server.stats()
            let long = String(repeating: "r", count: Limits.textLength + 1)
            let rows: [(HTTPRequest.Method, String, String?, Int, String)] = [
                (.post, "create", "{}", 400, "name"),
                (.post, "create", #"{"name":"g"}"#, 400, "order"),
                (.post, "create", #"{"name":"g","order":1}"#, 400, "webhookEndpoint"),
                (.post, "create", #"{"name":"g","order":1,"webhookEndpoint":"ftp://x"}"#, 400, "webhookEndpoint"),
                (.post, "create", #"{"name":"g","order":1,"webhookEndpoint":"http://a.example/c","mimeTypeRegex":"("}"#, 400, "mimeTypeRegex"),
                (.post, "create", #"{"name":"g","order":1,"webhookEndpoint":"http://a.example/c","webhookStatus":"ON"}"#, 400, "webhookStatus"),
                (.post, "create", #"{"$_type":"WebhookRegistration","name":"g","order":1,"webhookEndpoint":"http://a.example/c"}"#, 400, "$_type"),
                (.post, "create", "[", 400, "JSON"),
                (.get, "unknown/read", nil, 404, "unknown"),
                (.get, "getByName", nil, 400, "name"),
                (.get, "getByName?name=nowhere", nil, 404, "nowhere"),
                (.post, "update", Self.valid, 400, "id"),
                (.post, "update", #"{"id":"unknown","name":"g","order":1,"webhookEndpoint":"http://a.example/c"}"#, 404, "unknown"),
                (.delete, "unknown/delete", nil, 404, "unknown"),
                (.post, "unknown/sendPing", nil, 404, "unknown"),
                (
                    .post, "search", #"{"searchFilters":[{"field":"WEBHOOK_ENDPOINT","operator":{"type":"EQUALS","value":"x"}}]}"#, 400,
                    "WEBHOOK_ENDPOINT"
                ),
                (.post, "search", #"{"searchFilters":[{"field":"ID","operator":{"type":"EQUALS","value":"x"}}]}"#, 400, "ID"),
                (.post, "search", #"{"searchFilters":[{"field":"NAME","operator":{"type":"GREATER_THAN","value":1}}]}"#, 400, "GREATER_THAN"),
                (.post, "search", #"{"orderBy":[{"field":"ORDER"}]}"#, 400, "ORDER"),
                (.post, "search", #"{"$_type":"MessageInterceptorQuery"}"#, 400, "$_type"),
                (.post, "search", #"{"limit":-1}"#, 400, "limit"),
                (.post, "approveFileUpload", "{}", 400, "token"),
                (.post, "approveFileUpload", #"{"token":"unknown"}"#, 404, "token"),
                (.post, "rejectFileUpload", #"{"token":"unknown","reason":"\#(long)"}"#, 400, "reason"),
                (.post, "rejectFileUpload", #"{"token":"unknown"}"#, 404, "token"),
            ]
            for (method, path, body, status, named) in rows {
                let answer = try await server.json(method, "fileuploadglobalinterceptors/" + path, as: "root", password: "root", body: body)
                let message = answer.object["errorMessage"] as? String ?? ""
                #expect(answer.status == status && message.contains(named), "\(method) \(path) → \(answer.status) \(message)")
            }
            #expect(try server.stats() == before, "bad input changed state")
            #expect(server.server.environment.repository.directory.globalConfiguration.fileUploadInterceptors.isEmpty)
        }
    }

    @Test("create, read, getByName, search, update with version, delete: one server-wide list, apart from the accounts' own")
    func storedList() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            func root(_ method: HTTPRequest.Method, _ path: String, _ body: String? = nil) async throws -> (status: Int, object: [String: Any]) {
                try await server.json(method, "fileuploadglobalinterceptors/" + path, as: "root", password: "root", body: body)
            }
            let created = try await root(.post, "create", Self.valid)
            #expect(created.status == 200)
            let id = try #require(created.object["id"] as? String)
            #expect(created.object["accountId"] == nil, "a global interceptor belongs to no account")
            #expect(created.object["webhookSecret"] as? String == "global-secret", "a super admin reads the secret")
            #expect(created.object["webhookStatus"] as? String == "ACTIVE" && created.object["version"] as? Int == 1)
            let second = try await root(
                .post, "create", #"{"name":"images","order":2,"mimeTypeRegex":"image/.*","webhookEndpoint":"http://127.0.0.1:9/i"}"#)
            let secondId = try #require(second.object["id"] as? String)
            #expect((second.object["webhookSecret"] as? String)?.count ?? 0 >= 32, "a secret is generated when none is given")
            #expect(try await root(.post, "create", Self.valid).status == 409, "names are unique")

            #expect(try await root(.get, "\(id)/read").object["name"] as? String == "scan-all")
            #expect(try await root(.get, "getByName?name=images").object["id"] as? String == secondId)
            let named = try await root(.post, "search", #"{"searchFilters":[{"field":"NAME","operator":{"type":"CONTAINS","value":"IMAG"}}]}"#)
            #expect((named.object["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [secondId])
            let page = try await root(.post, "search", #"{"orderBy":[{"field":"NAME","order":"DESCENDING"}],"limit":1}"#)
            #expect((page.object["items"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["scan-all"])
            #expect(page.object["hasMoreItems"] as? Bool == true && page.object["nextOffset"] as? Int == 1)

            let update =
                #"{"id":"\#(id)","version":1,"name":"scan-all","order":3,"webhookStatus":"INACTIVE","webhookEndpoint":"http://127.0.0.1:9/v2"}"#
            let updated = try await root(.post, "update", update)
            #expect(updated.object["version"] as? Int == 2 && updated.object["order"] as? Int == 3)
            #expect(updated.object["webhookSecret"] as? String == "global-secret", "the secret is kept when absent")
            #expect(try await root(.post, "update", update).status == 409, "a stale version")

            // The accounts' own lists do not show global interceptors, and their admins cannot reach them.
            let own = try await server.json(.post, "fileuploadinterceptors/search", as: "root", password: "root", body: "{}")
            #expect((own.object["items"] as? [Any])?.isEmpty == true)
            #expect(try await server.json(.get, "fileuploadglobalinterceptors/\(id)/read", as: "alpha-admin").status == 403)
            #expect(try await server.json(.get, "fileuploadinterceptors/\(id)/read", as: "alpha-admin").status == 404)

            #expect(try await root(.delete, "\(secondId)/delete").status == 204)
            #expect(try await root(.get, "\(secondId)/read").status == 404)
            #expect(server.server.environment.repository.directory.globalConfiguration.fileUploadInterceptors.keys.sorted() == [id])
        }
    }

    @Test("server snapshots carry global interceptors: with their secret when included, without it (renewed on import) when redacted")
    func snapshots() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let created = try await server.json(.post, "fileuploadglobalinterceptors/create", as: "root", password: "root", body: Self.valid)
            let id = try #require(created.object["id"] as? String)
            func read() async throws -> [String: Any] {
                try await server.json(.get, "fileuploadglobalinterceptors/\(id)/read", as: "root", password: "root").object
            }
            let included = try await server.control.exportSnapshot(includeSecrets: true)
            let redacted = try await server.control.exportSnapshot(includeSecrets: false)
            #expect(String(decoding: included, as: UTF8.self).contains("global-secret"))
            #expect(!String(decoding: redacted, as: UTF8.self).contains("global-secret"), "a redacted snapshot leaves the secret out")

            try await server.control.reset()
            #expect(
                try await server.json(.get, "fileuploadglobalinterceptors/\(id)/read", as: "root", password: "root").status == 404,
                "a reset removes them")
            _ = try await server.control.importSnapshot(included)
            #expect(try await read()["webhookSecret"] as? String == "global-secret")
            #expect(try await read()["name"] as? String == "scan-all")

            _ = try await server.control.importSnapshot(redacted)
            // (Users have no password after a redacted import: the stored list is read directly.)
            let renewed = server.server.environment.repository.directory.globalConfiguration.fileUploadInterceptors[id]?.secret
            #expect(renewed != nil && renewed != "global-secret" && renewed?.isEmpty == false, "a redacted import issues a new secret")
        }
    }

    @Test("a seed's global.fileUploadInterceptors are created once, matched by name and updated in place; a bad entry is a 400 naming it")
    func seeds() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            func seed(order: Int, endpoint: String = "http://127.0.0.1:9/seeded") -> String {
                """
                global:
                  fileUploadInterceptors:
                    - {name: seeded, order: \(order), mimeTypeRegex: application/pdf, webhookEndpoint: "\(endpoint)"}
                accounts: []
                """
            }
            func stored() -> [FileUploadInterceptor] {
                Array(server.server.environment.repository.directory.globalConfiguration.fileUploadInterceptors.values)
            }
            #expect(try await server.control.seed(seed(order: 2)) == SeedResult(created: 1, updated: 0, unchanged: 0))
            let created = try #require(stored().first)
            #expect(created.accountId == "" && created.mimeTypeRegex == "application/pdf" && created.secret.count >= 32)
            #expect(try await server.control.seed(seed(order: 2)) == SeedResult(created: 0, updated: 0, unchanged: 1))
            #expect(stored() == [created], "applying the same seed again changes nothing, the generated secret included")
            #expect(try await server.control.seed(seed(order: 5)) == SeedResult(created: 0, updated: 1, unchanged: 0))
            #expect(stored().map(\.order) == [5] && stored().map(\.version) == [2] && stored().map(\.secret) == [created.secret])

            let refused = await #expect(throws: CollabClientError.self) { try await server.control.seed(seed(order: 1, endpoint: "ftp://x")) }
            #expect(refused?.status == 400)
            #expect(refused?.message.contains("global.fileUploadInterceptors[0]") == true && refused?.message.contains("webhookEndpoint") == true)
            #expect(stored().map(\.order) == [5], "a refused seed changes nothing")
        }
    }
}
