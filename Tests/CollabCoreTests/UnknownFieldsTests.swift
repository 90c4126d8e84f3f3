import CollabCore
import Foundation
import Testing

/// Keys a type does not read are found by comparing the document with the decoded value's encoding.
@Suite("Unknown fields")
struct UnknownFieldsTests {
    struct Rule: Codable {
        struct Match: Codable {
            var path: String?
            var method: String?
        }
        var name: String
        var match: Match?
        var tags: [String: String]?
        var steps: [Match]?
    }

    static func firstPath(_ json: String) throws -> String? {
        let data = Data(json.utf8)
        let rule = try JSONDecoder().decode(Rule.self, from: data)
        return UnknownFields.firstPath(in: try JSONSerialization.jsonObject(with: data), decodedAs: rule)
    }

    @Test("the first unknown key's path, in sorted order, through objects and arrays; null values and free-form maps pass", arguments: [
        (#"{"name":"r"}"#, nil),
        (#"{"name":"r","match":{"path":"/x","method":null},"tags":{"anything":"goes"},"steps":[{"path":"/a"},{}]}"#, nil),
        (#"{"name":"r","match":null,"extra":null}"#, nil),
        (#"{"name":"r","nmae":"typo"}"#, "nmae"),
        (#"{"name":"r","match":{"pathh":"/x"}}"#, "match.pathh"),
        (#"{"name":"r","steps":[{"path":"/a"},{"methd":"GET"}]}"#, "steps[1].methd"),
        (#"{"name":"r","zeta":1,"alpha":2}"#, "alpha"),
    ] as [(String, String?)])
    func paths(json: String, expected: String?) throws {
        #expect(try Self.firstPath(json) == expected)
    }

    @Test("check throws a 400 that names the key and the document")
    func check() throws {
        let data = Data(#"{"name":"r","match":{"pathh":"/x"}}"#.utf8)
        let rule = try JSONDecoder().decode(Rule.self, from: data)
        #expect {
            try UnknownFields.check(try JSONSerialization.jsonObject(with: data), decodedAs: rule, what: "rule")
        } throws: { error in
            (error as? CollabError)?.kind == .badRequest
                && (error as? CollabError)?.message == "invalid rule: unknown field 'match.pathh' (misspelt, or not part of the format)"
        }
    }
}
