import CollabCore
import Foundation
import HTTPTypes
import Testing

@testable import CollabServer

/// The entity layer's generic operations, for every declared kind the Web API creates (router mode,
/// driven by ``EntityRegistry``): create, read, readMultiple, update with its version, a stale version
/// refused, search by an indexed field, delete, the vendor's 404 after it, and an audit entry per write.
@Suite("Entity layer: generic operations of every declared kind")
struct EntityLayerTests {
    @Test("create, read, readMultiple, update, stale version, search, delete, audit", .serialized, arguments: EntitySamples.creatable)
    func lifecycle(typeName: String) async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let type = try #require(EntityRegistry.type(named: typeName))
            let path = type.path
            let body = try #require(try await server.sample(typeName, tag: "one"))
            let created = try await server.json(.post, "\(path)/create", body: body)
            #expect(created.status == 200, "\(typeName) create: \(created.object)")
            let id = try #require(created.object["id"] as? String)
            #expect(created.object["accountId"] != nil && created.object["creationTimestamp"] != nil)
            let wireType = try #require(created.object["$_type"] as? String)
            #expect(VendorSchemaCheck.problems(try JSONSerialization.data(withJSONObject: created.object), schema: wireType).isEmpty)

            let read = try await server.json(.get, "\(path)/\(id)/read")
            #expect(read.status == 200 && read.object["id"] as? String == id)
            if type.readsMultiple {
                let list = try await server.json(.post, "\(path)/readMultiple", body: #"["\#(id)","missing","\#(id)"]"#)
                let ids = (list.object["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
                #expect(ids == [id, id], "missing ids are left out, order kept")
            }

            if type.versioned {
                let version = try #require(created.object["version"] as? Int)
                let updated = try await server.json(.post, "\(path)/update", body: try Self.text(created.object))
                #expect(updated.status == 200 && updated.object["version"] as? Int == version + 1, "\(typeName) update: \(updated.object)")
                let stale = try await server.json(.post, "\(path)/update", body: try Self.text(created.object))
                #expect(stale.status == 409, "a stale version is refused: \(stale.object)")
                var unversioned = created.object
                unversioned["version"] = nil
                #expect(try await server.json(.post, "\(path)/update", body: try Self.text(unversioned)).status == 400)
            } else {
                // The vendor's schema has no version: an update replaces the entity as sent.
                let updated = try await server.json(.post, "\(path)/update", body: try Self.text(created.object))
                #expect(updated.status == 200 && updated.object["version"] == nil, "\(typeName) update: \(updated.object)")
            }

            let timestamp = try #require(created.object["creationTimestamp"] as? Int)
            let query = #"{"searchFilters":[{"field":"CREATION_TIMESTAMP","operator":{"type":"EQUALS","value":\#(timestamp)}}]}"#
            if type.hasField("CREATION_TIMESTAMP") {
                let found = try await server.json(.post, "\(path)/search", body: query)
                let resultType = try #require(found.object["$_type"] as? String)
                let problems = VendorSchemaCheck.problems(try JSONSerialization.data(withJSONObject: found.object), schema: resultType)
                #expect(problems.isEmpty, "\(typeName) search result: \(problems)")
                let hit = (found.object["items"] as? [[String: Any]])?.contains { $0["id"] as? String == id }
                #expect(hit == true, "\(typeName) search: \(found.object)")
            }

            #expect(try await server.json(.delete, "\(path)/\(id)/delete").status == 204)
            let gone = try await server.json(.get, "\(path)/\(id)/read")
            #expect(gone.status == 404 && gone.object["$_type"] as? String == "Error")

            let audit = try await server.json(
                .post, "audit/search", body: #"{"searchFilters":[{"field":"ENTITY_ID","operator":{"type":"EQUALS","value":"\#(id)"}}]}"#
            )
            let changes = (audit.object["items"] as? [[String: Any]])?.compactMap { $0["changeType"] as? String }.sorted()
            #expect(changes == ["CREATE", "DELETE", "UPDATE"], "\(typeName) audit: \(audit.object)")
        }
    }

    @Test("search honours every operator its field allows, order, offset and limit")
    func searchModel() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            for tag in ["a", "b", "c", "d"] {
                let body = #"{"$_type":"PersonLabel","name":"\#(tag)-label","color":"red","description":"\#(tag == "c" ? "special" : "plain")"}"#
                #expect(try await server.json(.post, "personlabels/create", body: body).status == 200)
            }
            func names(_ query: String) async throws -> [String] {
                let answer = try await server.json(.post, "personlabels/search", body: query)
                return (answer.object["items"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
            }
            func filter(_ op: String) -> String { #"{"searchFilters":[{"field":"NAME","operator":\#(op)}],"orderBy":[{"field":"NAME"}]}"# }
            #expect(try await names(filter(#"{"type":"EQUALS","value":"b-label"}"#)) == ["b-label"])
            #expect(try await names(filter(#"{"type":"NOT_EQUALS","value":"b-label"}"#)) == ["a-label", "c-label", "d-label"])
            #expect(try await names(filter(#"{"type":"IN","values":["a-label","d-label"]}"#)) == ["a-label", "d-label"])
            #expect(try await names(filter(#"{"type":"NOT_IN","values":["a-label","d-label"]}"#)) == ["b-label", "c-label"])
            #expect(try await names(filter(#"{"type":"CONTAINS","value":"C-LAB"}"#)) == ["c-label"])
            #expect(try await names(filter(#"{"type":"IS_NOT_NULL"}"#)).count == 4)
            #expect(try await names(filter(#"{"type":"IS_NULL"}"#)).isEmpty)
            let descending = #"{"orderBy":[{"field":"NAME","order":"DESCENDING"}],"offset":1,"limit":2}"#
            let page = try await server.json(.post, "personlabels/search", body: descending)
            #expect((page.object["items"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["c-label", "b-label"])
            #expect(page.object["hasMoreItems"] as? Bool == true && page.object["nextOffset"] as? Int == 3)
            let last = try await server.json(.post, "personlabels/search", body: #"{"offset":3,"limit":2}"#)
            #expect(last.object["hasMoreItems"] as? Bool == false)
            let stamps = #"{"searchFilters":[{"field":"CREATION_TIMESTAMP","operator":{"type":"GREATER_THAN","value":0}}]}"#
            #expect(try await names(stamps).count == 4)
            let range = #"{"searchFilters":[{"field":"CREATION_TIMESTAMP","operator":{"type":"IN_RANGE","minimum":0,"maximum":1}}]}"#
            #expect(try await names(range).isEmpty)
            let byNames = try await server.json(.post, "personlabels/getByNames", body: #"["d-label","nope","a-label"]"#)
            #expect((byNames.object["items"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["d-label", "a-label"])
            let duplicate = try await server.json(.post, "personlabels/create", body: #"{"name":"a-label","color":"blue"}"#)
            #expect(duplicate.status == 409, "names are unique within an account")
        }
    }

    static func text(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }
}

extension DeclaredEntity {
    static var path: String { declaration.path }
    static var readsMultiple: Bool { declaration.operations.readMultiple != nil }
    static var versioned: Bool { declaration.versioned }
    static func hasField(_ name: String) -> Bool { declaration.field(name) != nil }
}
