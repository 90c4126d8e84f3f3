import CollabClient
import CollabCore
import CollabWire
import Foundation
import HTTPTypes
import Testing

@testable import CollabServer

private func method(of item: Any) -> String? {
    (item as? [String: Any])?.keys.first
}

@Suite("Operational routes")
struct OpsTests {
    @Test("methods a client makes up (HTTP/2 takes any token) are counted as _OTHER, not as a series each")
    func madeUpMethods() async throws {
        try await InProcessServer.with { server in
            let tag = "MADEUP" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
            for index in 0..<5 {
                let method = try #require(HTTPRequest.Method("\(tag)\(index)"))
                let answer = try await server.call(method, "/app/rest/v4/accounts/getCurrentAccount")
                #expect(answer.status.code >= 400 && answer.status.code < 500, "\(answer.status)")
            }
            let text = try await server.call(.get, "/metrics").text
            #expect(!text.contains(tag), "no label names a made-up method")
            #expect(text.contains(#"http_request_method="_OTHER""#))
            #expect(text.contains(#"http_request_method="GET""#), "the methods of HTTP keep their own series")
        }
    }

    @Test("healthz, readyz, metrics and openapi.json")
    func ops() async throws {
        try await InProcessServer.with { server in
            let transport = server.transport(.none)
            let health = try await transport.raw("GET", "/healthz")
            #expect(health.status == 200)
            let healthBody = try JSONSerialization.jsonObject(with: health.body) as? [String: String]
            #expect(healthBody == ["status": "ok", "version": MockCollabVersion.current])
            #expect(try await transport.raw("GET", "/readyz").status == 200)
            _ = try await server.admin("admin", "admin").accounts.current()
            let metrics = try await transport.raw("GET", "/metrics")
            #expect(metrics.status == 200)
            let text = String(decoding: metrics.body, as: UTF8.self)
            #expect(text.contains("hb_requests"), "request counters are exported")
            #expect(metrics.header("content-type")?.hasPrefix("text/plain") == true)

            let document = try await transport.raw("GET", "/openapi.json")
            let json = try #require(try JSONSerialization.jsonObject(with: document.body) as? [String: Any])
            #expect((json["openapi"] as? String)?.hasPrefix("3.1") == true)
            #expect((json["info"] as? [String: Any])?["version"] as? String == MockCollabVersion.current, "one version string")
            let paths = try #require(json["paths"] as? [String: Any])
            for path in [
                "/healthz", "/readyz", "/metrics", "/openapi.json", "/_mock/v1/reset", "/_mock/v1/seed", "/_mock/v1/journal",
                "/_mock/v1/accounts/{account}/tokens", "/_mock/v1/clock", "/_mock/v1/stats", "/_mock/v1/webhooks/deliveries", "/mobile/v1/clients",
                "/mobile/v1/clients/current", "/mobile/v1/clients/current/app-state", "/mobile/v1/clients/current/named-area",
                "/mobile/v1/availability", "/mobile/v1/conversations", "/mobile/v1/conversations/{id}", "/mobile/v1/conversations/{id}/open",
                "/mobile/v1/conversations/{id}/close", "/mobile/v1/conversations/{id}/end", "/mobile/v1/conversations/{id}/messages",
                "/mobile/v1/events", "/agent/v1/login", "/agent/v1/logout", "/agent/v1/me", "/agent/v1/presence", "/agent/v1/queue",
                "/agent/v1/conversations", "/agent/v1/conversations/{id}", "/agent/v1/conversations/{id}/accept",
                "/agent/v1/conversations/{id}/decline", "/agent/v1/conversations/{id}/requeue", "/agent/v1/conversations/{id}/end",
                "/agent/v1/conversations/{id}/messages", "/agent/v1/events", "/mobile/v1/clients/current/push",
                "/mobile/v1/clients/current/notification-keys", "/mobile/v1/calls/{id}", "/mobile/v1/calls/{id}/answer",
                "/mobile/v1/calls/{id}/decline", "/mobile/v1/calls/{id}/end", "/agent/v1/conversations/{id}/calls", "/agent/v1/calls/{id}",
                "/agent/v1/calls/{id}/end", "/_mock/v1/pushes", "/_mock/v1/pushes/wait", "/_mock/v1/devices", "/_mock/v1/devices/{id}/rotate-key",
                "/_mock/v1/accounts/{account}/push-settings", "/agent/v1/conversations/{id}/cobrowsing", "/agent/v1/cobrowsing/{id}",
                "/agent/v1/cobrowsing/{id}/frame", "/mobile/v1/conversations/{id}/cobrowsing", "/mobile/v1/cobrowsing/{id}/frames",
                "/_mock/v1/cobrowsing/{id}/stats", "/_mock/v1/configuration", "/",
            ] {
                #expect(paths[path] != nil, "\(path) is not documented")
            }
            #expect(!paths.keys.contains { $0.hasPrefix("/app/rest") }, "the vendor's Web API is documented by the vendor's spec")

            // Every documented operation exists: none answers "no route".
            for (path, item) in paths {
                guard let operations = item as? [String: Any] else { continue }
                let concrete = path.replacingOccurrences(of: "{id}", with: "x").replacingOccurrences(of: "{account}", with: "x")
                // Streams stay open: they are exercised by their own tests.
                if path.hasSuffix("/stream") || path.hasSuffix("/events") || path.hasSuffix("/frames") && method(of: item) == "get" { continue }
                for method in operations.keys {
                    let response = try await transport.raw(method.uppercased(), concrete)
                    let text = String(decoding: response.body, as: UTF8.self)
                    #expect(!text.contains("no route for"), "\(method.uppercased()) \(path) is documented but not served")
                    #expect(response.status != 405, "\(method.uppercased()) \(path) is documented but not served")
                }
            }
        }
    }

    @Test("the spec's error types are every type the mobile and agent APIs answer with, and no other")
    func errorTypesMatchTheSpec() async throws {
        try await InProcessServer.with { server in
            let document = try await server.transport(.none).raw("GET", "/openapi.json")
            let json = try #require(try JSONSerialization.jsonObject(with: document.body) as? [String: Any])
            let schemas = try #require((json["components"] as? [String: Any])?["schemas"] as? [String: Any])
            func types(_ schema: String) throws -> Set<String> {
                let object = try #require(schemas[schema] as? [String: Any], "\(schema) is not in the spec")
                let type = try #require((object["properties"] as? [String: Any])?["type"] as? [String: Any])
                return Set(try #require(type["enum"] as? [String], "\(schema).type lists its values"))
            }
            // A refused message (a message interceptor said no) answers in the typed body too.
            let typed = Set(CollabError.Kind.allCases.map(\.typeName)).union([FileRefusal.Code.messageRejected.rawValue])
            #expect(try types("TypedError") == typed)
            // A file refusal, or the bad request of a malformed upload.
            let file = Set(FileRefusal.Code.allCases.map(\.rawValue)).union([CollabError.Kind.badRequest.typeName])
            #expect(try types("FileError") == file)
        }
    }
}
