import CollabClient
import CollabCore
import CollabSeed
import CollabServer
import CollabWire
import Foundation
import Testing

/// Seeds are bounded: size, and no YAML anchors or aliases (an alias bomb would expand without bound).
@Suite("Seed bounds")
struct SeedBoundsTests {
    /// A "billion laughs" document: nine levels of nine aliases each.
    static let aliasBomb: String = {
        var lines = ["a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]"]
        for level in 1...9 {
            let previous = Array(repeating: "*a\(level - 1)", count: 9).joined(separator: ",")
            lines.append("a\(level): &a\(level) [\(previous)]")
        }
        lines.append("accounts:")
        lines.append("  - name: bomb")
        lines.append("    apiKeys: *a9")
        return lines.joined(separator: "\n")
    }()

    static func refusal(_ text: String) -> CollabError? {
        do throws(CollabError) {
            _ = try SeedLoader.parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test("an alias bomb is refused with a clear 400 by the control API, before any expansion")
    func aliasBombOverControlAPI() async throws {
        try await InProcessServer.with { server in
            let response = try await server.control.transport.raw(
                "POST", "/_mock/v1/seed", body: Data(Self.aliasBomb.utf8), contentType: "application/yaml")
            #expect(response.status == 400)
            let text = String(decoding: response.body, as: UTF8.self)
            #expect(text.contains("anchors and aliases"))
            // The server still answers, unchanged.
            #expect(try await server.control.stats().accounts == 1)
        }
    }

    @Test("anchors and aliases anywhere are refused; & and * inside values and quotes are fine")
    func anchorsAndAliases() throws {
        let refused = [
            "accounts:\n  - &x\n    name: a\n  - *x\n",
            "accounts: [&x {name: a}, *x]\n",
            "accounts:\n  - name: !!str &n a\n",
            "x: &y 1\naccounts: []\n",
            "--- &doc\naccounts: []\n",
            "accounts:\n  - name: a\n    apiKeys: [{key: k}, *k]\n",
            "? &k name\n: a\n",
            // A value right after a JSON-like key's colon, no space.
            "accounts:\n  - {\"name\":&n a}\n",
            "? {\"k\":*a}\n: 1\n",
            "x: {[a]:*b}\n",
            // Lines broken by a lone carriage return (and \r\n, and the Unicode breaks YAML counts).
            "x: 1\r&a y: 2\r",
            "x: 1\r\n  - *a\r\n",
            "x: 1\u{85}&a y: 2\n",
            "x: 1\u{2028}*a\n",
            Self.aliasBomb,
        ]
        for text in refused {
            let error = Self.refusal(text)
            #expect(error?.kind == .badRequest, "\(text.debugDescription) accepted")
            #expect(error?.message.contains("anchors and aliases") == true, "\(text.debugDescription): \(String(describing: error))")
            // Caught by the text scan (whose message names the line), not only after Yams composed the nodes.
            #expect(error?.message.contains("(line ") == true, "\(text.debugDescription): \(String(describing: error))")
        }
        let accepted = """
            # a comment with &anchor and *alias
            accounts:
              - name: "Tom & Jerry *co*"
                apiKeys:
                  - key: 'p&*ss'
                    description: Fish & chips, 2 * 3
                    name: |
                      &not-an-anchor
                      *not-an-alias
            """
        let seed = try SeedLoader.parse(accepted)
        #expect(seed.accounts.first?.name == "Tom & Jerry *co*")
        #expect(seed.accounts.first?.apiKeys?.first?.key == "p&*ss")
        #expect(seed.accounts.first?.apiKeys?.first?.description == "Fish & chips, 2 * 3")
    }

    @Test("a seed larger than 1 MiB is refused, as text and as a --seed file")
    func size() throws {
        let big = "accounts: []\n" + String(repeating: "# padding\n", count: 110_000)
        #expect(Self.refusal(big)?.message.contains("larger than") == true)
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("big.yaml").path
        try Data(big.utf8).write(to: URL(fileURLWithPath: path))
        do throws(CollabError) {
            _ = try SeedLoader.load(path: path)
            Issue.record("a big seed file was accepted")
        } catch {
            #expect(error.message.contains("larger than"))
        }
        let bomb = directory.appendingPathComponent("bomb.yaml").path
        try Data(Self.aliasBomb.utf8).write(to: URL(fileURLWithPath: bomb))
        do throws(CollabError) {
            _ = try SeedLoader.load(path: bomb)
            Issue.record("an alias bomb seed file was accepted")
        } catch {
            #expect(error.message.contains("anchors and aliases"))
        }
    }

    @Test("a YAML null reads as JSON's: a required field given null is missing, an optional one unset, a null list item refused")
    func nullsAreAbsent() throws {
        for null in ["null", "~", "", "Null"] {
            let refusal = Self.refusal("accounts:\n  - name: a\n    apiKeys:\n      - key: \(null)\n")
            #expect(refusal?.kind == .badRequest, "key: \(null) was accepted")
            #expect(refusal?.message.contains("key") == true, "\(refusal?.message ?? "")")
        }
        let optional = try SeedLoader.parse("accounts:\n  - name: a\n    apiKeys:\n      - key: k\n        name: null\n")
        #expect(optional.accounts.first?.apiKeys?.first?.name == nil)
        // Quoted, it is the text.
        let quoted = try SeedLoader.parse("accounts:\n  - name: a\n    apiKeys:\n      - key: 'null'\n")
        #expect(quoted.accounts.first?.apiKeys?.first?.key == "null")
        let item = Self.refusal("accounts:\n  - name: a\n    apiKeys:\n      - ~\n")
        #expect(item?.kind == .badRequest && item?.message.contains("line 4") == true, "\(item?.message ?? "")")
    }
}
