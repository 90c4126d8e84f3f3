import CollabClient
import CollabCore
import CollabStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import CollabServer

/// Every operation against every role: the minimum role of each operation is the vendor's
/// `x-required-role`. Requests use unknown ids and empty bodies, so allowed calls fail validation or
/// lookup (4xx other than 401/403) and nothing changes.
@Suite("Role rules")
struct RoleRulesTests {
    struct Operation: Sendable, CustomStringConvertible {
        var method: String
        var path: String
        var body: String?
        var required: AuthorizationRole
        var description: String { "\(method) \(path)" }
    }

    static let operations: [Operation] = [
        .init(method: "GET", path: "/app/rest/v4/accounts/getCurrentAccount", required: .registeredUser),
        .init(method: "GET", path: "/app/rest/v4/accounts/unknown/read", required: .superAdmin),
        .init(method: "POST", path: "/app/rest/v4/accounts/search", body: #"{"limit":-1}"#, required: .superAdmin),
        .init(method: "POST", path: "/app/rest/v4/accounts/create", body: "{}", required: .superAdmin),
        .init(method: "POST", path: "/app/rest/v4/accounts/createAccountWithNewAdmin", body: "{}", required: .superAdmin),
        .init(method: "POST", path: "/app/rest/v4/accounts/update", body: "{}", required: .admin),
        .init(method: "DELETE", path: "/app/rest/v4/accounts/unknown/delete", required: .superAdmin),
        .init(method: "POST", path: "/app/rest/v4/apikeys/create", body: "{}", required: .admin),
        .init(method: "GET", path: "/app/rest/v4/apikeys/unknown/read", required: .admin),
        .init(method: "GET", path: "/app/rest/v4/apikeys/getByKey?apiKey=unknown", required: .admin),
        .init(method: "GET", path: "/app/rest/v4/apikeys/getDefault", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/apikeys/readMultiple", body: "{}", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/apikeys/search", body: #"{"limit":-1}"#, required: .admin),
        .init(method: "POST", path: "/app/rest/v4/apikeys/update", body: "{}", required: .admin),
        .init(method: "DELETE", path: "/app/rest/v4/apikeys/unknown/delete", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/namedareas/create", body: "{}", required: .admin),
        .init(method: "GET", path: "/app/rest/v4/namedareas/unknown/read", required: .registeredUser),
        .init(method: "POST", path: "/app/rest/v4/namedareas/readMultiple", body: "{}", required: .registeredUser),
        .init(method: "POST", path: "/app/rest/v4/namedareas/search", body: #"{"limit":-1}"#, required: .registeredUser),
        .init(method: "POST", path: "/app/rest/v4/namedareas/update", body: "{}", required: .admin),
        .init(method: "DELETE", path: "/app/rest/v4/namedareas/unknown/delete", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/users/create", body: "{}", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/users/createWithPassword", body: "{}", required: .admin),
        .init(method: "GET", path: "/app/rest/v4/users/unknown/read", required: .registeredUser),
        .init(method: "GET", path: "/app/rest/v4/users/getByUsername?username=unknown", required: .registeredUser),
        .init(method: "POST", path: "/app/rest/v4/users/search", body: #"{"limit":-1}"#, required: .registeredUser),
        .init(method: "POST", path: "/app/rest/v4/users/update", body: "{}", required: .registeredUser),
        .init(method: "DELETE", path: "/app/rest/v4/users/unknown/delete", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/users/unknown/setPassword", body: "{}", required: .registeredUser),
        .init(method: "GET", path: "/app/rest/v4/persons/unknown/read", required: .registeredUser),
        .init(method: "GET", path: "/app/rest/v4/persons/getBySource?personSource=VIRTUAL&sourceId=unknown", required: .registeredUser),
        .init(method: "POST", path: "/app/rest/v4/persons/createOrUpdateVirtual", body: "{}", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/persons/search", body: #"{"limit":-1}"#, required: .admin),
        .init(method: "POST", path: "/app/rest/v4/persons/searchAgents", body: #"{"limit":-1}"#, required: .registeredUser),
        .init(method: "POST", path: "/app/rest/v4/persons/searchVisitors", body: #"{"limit":-1}"#, required: .registeredUser),
        .init(method: "POST", path: "/app/rest/v4/authenticator/login", body: "{}", required: .anonymousUser),
        .init(method: "POST", path: "/app/rest/v4/authenticator/createAuthenticationToken", body: "{}", required: .anonymousUser),
        .init(method: "GET", path: "/app/rest/v4/authenticator/authenticateWithToken?authenticationToken=unknown", required: .anonymousUser),
        .init(method: "POST", path: "/app/rest/v4/authenticator/loginWithSecureToken", body: "{}", required: .anonymousUser),
        .init(method: "POST", path: "/_mock/v1/reset", body: "[]", required: .superAdmin),
        .init(method: "POST", path: "/_mock/v1/seed", body: "{]", required: .superAdmin),
        .init(method: "GET", path: "/_mock/v1/journal?limit=x", required: .admin),
        .init(method: "POST", path: "/_mock/v1/accounts/unknown/tokens", body: "{}", required: .superAdmin),
        .init(method: "POST", path: "/_mock/v1/accounts/unknown/tokens/revoke", body: "{}", required: .superAdmin),
        .init(method: "GET", path: "/_mock/v1/clock", required: .admin),
        .init(method: "POST", path: "/_mock/v1/clock", body: "{]", required: .superAdmin),
        .init(method: "GET", path: "/_mock/v1/stats?account=unknown", required: .admin),
        .init(method: "GET", path: "/_mock/v1/configuration?account=unknown", required: .admin),
        .init(method: "GET", path: "/_mock/v1/devices?account=unknown", required: .admin),
        .init(method: "POST", path: "/_mock/v1/devices/unknown/rotate-key", required: .superAdmin),
        .init(method: "GET", path: "/_mock/v1/pushes?kind=x", required: .admin),
        .init(method: "GET", path: "/_mock/v1/pushes/wait?kind=x", required: .admin),
        .init(method: "GET", path: "/_mock/v1/pushes/settle?timeoutMs=x", required: .admin),
        .init(method: "GET", path: "/_mock/v1/faults", required: .admin),
        .init(method: "POST", path: "/_mock/v1/faults", body: "{}", required: .admin),
        .init(method: "PUT", path: "/_mock/v1/faults/unknown", body: "{}", required: .admin),
        .init(method: "DELETE", path: "/_mock/v1/faults/unknown", required: .admin),
        .init(method: "GET", path: "/_mock/v1/webhooks/deliveries?limit=x", required: .admin),
        .init(method: "GET", path: "/_mock/v1/cobrowsing/unknown/stats", required: .admin),
        .init(method: "GET", path: "/_mock/v1/accounts/unknown/push-settings", required: .superAdmin),
    ]

    static let callers: [(username: String, role: AuthorizationRole)] = [
        ("alpha-webuser", .webuser), ("alpha-agent", .registeredUser), ("alpha-supervisor", .supervisor), ("alpha-admin", .admin),
        ("root", .superAdmin),
    ]

    @Test("each role may call exactly the operations at or below it", .serialized, arguments: operations)
    func roles(operation: Operation) async throws {
        // In process (HummingbirdTesting's router mode): the same router and middleware, no sockets.
        let server = try await MockCollabServer(
            configuration: ServerConfiguration(port: 0, storage: .memory, seed: twoAccountSeed, passwordHashCost: 4), logger: TestServer.logger
        )
        try await server.buildApplication().test(.router) { client in
            let before = try server.environment.stats(accountId: nil, journalEntries: 0)
            func call(_ authorization: String?) async throws -> HTTPResponse.Status {
                var headers = HTTPFields()
                if let authorization { headers[.authorization] = authorization }
                if operation.body != nil { headers[.contentType] = "application/json" }
                let response = try await client.execute(
                    uri: operation.path, method: HTTPRequest.Method(operation.method)!, headers: headers,
                    body: operation.body.map { ByteBuffer(string: $0) }
                )
                return response.status
            }
            for caller in Self.callers {
                let password = caller.username == "root" ? "root" : "pw-a"
                let status = try await call("Basic " + Data("\(caller.username):\(password)".utf8).base64EncodedString())
                if caller.role >= operation.required {
                    // Allowed: the answer is the operation's own (data, 400 or 404), never a refusal. Anonymous
                    // operations may still answer 401 for bad credentials in the body (an unknown token).
                    #expect(status != .forbidden, "\(caller.username) should be allowed \(operation)")
                    if operation.required > .anonymousUser {
                        #expect(status != .unauthorized, "\(caller.username) should be allowed \(operation)")
                    }
                } else {
                    #expect(status == .forbidden, "\(caller.username) (\(caller.role)) must be refused \(operation), got \(status)")
                }
            }
            // Anonymous callers get 401 wherever a role is needed.
            let anonymous = try await call(nil)
            if operation.required > .anonymousUser {
                #expect(anonymous == .unauthorized, "anonymous must get 401 for \(operation)")
            }
            #expect(try server.environment.stats(accountId: nil, journalEntries: 0) == before, "probing \(operation) changed state")
        }
    }
}
