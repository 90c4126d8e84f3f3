import CollabCore
import Foundation
import HTTPTypes
import Testing

@testable import CollabServer

/// Roles, bad input and isolation of every operation of the tags the entity layer serves (router
/// mode). The roles come from the vendor's spec (`VendorOperations`), the bodies from the layer's
/// declarations, so a new kind or operation is covered without a new row.
@Suite("Entity layer: roles, bad input and isolation")
struct EntityRoleTableTests {
    /// The tags the entity layer serves (whole), and the operations of other tags it adds.
    static let tags: Set<String> = [
        "Audit", "Avatars", "CannedResponses", "CannedResponsesUsage", "CustomActions", "DeputyRelationships", "Domains", "PersonLabels",
        "PersonVisibilityRules", "RecordRetention", "SuggestionSources", "Teams", "ConversationTemplates", "ExternalMessengers",
        "ExternalMessengerContacts",
    ]
    static let labelPaths: Set<String> = [
        "/persons/{personId}/setLabels", "/persons/{personId}/addLabels", "/persons/{personId}/removeLabels",
        "/invitations/inviteTeamToConversation", "/invitations/forwardConversationToTeam", "/conversations/getBySourceIdAndChannelId",
    ]

    static var operations: [RoleRulesTests.Operation] {
        VendorOperations.all.filter { tags.contains($0.tag) || labelPaths.contains($0.path) }.map { operation in
            .init(vendor: operation, takesList: operation.path.hasSuffix("readMultiple") || operation.path.hasSuffix("Labels"))
        }
    }

    @Test("each role may call exactly the operations at or below the spec's role; probing changes nothing", .serialized, arguments: operations)
    func roles(operation: RoleRulesTests.Operation) async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in try await RoleRulesTests.expectRoles(operation, on: server) }
    }

    @Test("bad input is a 400 naming the field, and changes nothing", .serialized, arguments: EntitySamples.creatable)
    func badInput(typeName: String) async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let type = try #require(EntityRegistry.type(named: typeName))
            let before = try server.stats()
            let long = String(repeating: "x", count: EntityWire.stringLength + 1)
            let cases: [(String, String, String)] = [
                ("create", "[1]", "object"),
                ("create", #"{"$_type":"NoSuchType"}"#, "$_type"),
                ("create", #"{"id":5}"#, "id"),
                ("create", #"{"somewhere":"\#(long)"}"#, "somewhere"),
                ("create", #"{"deep":\#(String(repeating: "[", count: 20))\#(String(repeating: "]", count: 20))}"#, "deep"),
                ("update", #"{"id":"unknown","version":1}"#, "not found"),
                ("search", #"{"searchFilters":[{"field":"NO_SUCH_FIELD","operator":{"type":"EQUALS","value":"x"}}]}"#, "NO_SUCH_FIELD"),
                ("search", #"{"searchFilters":[{"field":"CREATION_TIMESTAMP","operator":{"type":"CONTAINS","value":"x"}}]}"#, "CONTAINS"),
                ("search", #"{"limit":-1}"#, "limit"),
                ("search", #"{"orderBy":[{"field":"NOWHERE"}]}"#, "NOWHERE"),
                ("search", #"{"$_type":"NoSuchQuery"}"#, "$_type"),
            ]
            for (operation, body, named) in cases where type.hasField("CREATION_TIMESTAMP") || !body.contains("CREATION_TIMESTAMP") {
                let answer = try await server.json(.post, "\(type.path)/\(operation)", as: "root", password: "root", body: body)
                let message = answer.object["errorMessage"] as? String ?? ""
                let context = "\(typeName) \(operation) \(body.prefix(80)) → \(answer.status) \(message)"
                #expect((400...404).contains(answer.status) && message.contains(named), "\(context)")
            }
            #expect(try server.stats() == before, "bad input changed state")
        }
    }

    @Test("another account's entities answer 404 and are not found by search", .serialized, arguments: EntitySamples.creatable)
    func isolation(typeName: String) async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let type = try #require(EntityRegistry.type(named: typeName))
            let body = try #require(try await server.sample(typeName, tag: "alpha"))
            let created = try await server.json(.post, "\(type.path)/create", body: body)
            let id = try #require(created.object["id"] as? String)
            func beta(_ method: HTTPRequest.Method, _ path: String, _ body: String? = nil) async throws -> Int {
                try await server.json(method, path, as: "beta-admin", password: "pw-b", body: body).status
            }
            #expect(try await beta(.get, "\(type.path)/\(id)/read") == 404)
            #expect(try await beta(.delete, "\(type.path)/\(id)/delete") == 404)
            #expect(try await beta(.post, "\(type.path)/update", try EntityLayerTests.text(created.object)) == 404)
            let search = try await server.json(.post, "\(type.path)/search", as: "beta-admin", password: "pw-b", body: "{}")
            let found = (search.object["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(!found.contains(id), "beta sees none of alpha's \(typeName)")
            #expect(try await server.json(.get, "\(type.path)/\(id)/read").status == 200, "alpha still has it")
        }
    }
}
