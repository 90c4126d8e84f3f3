public import CollabCore
import Foundation
import Yams

/// Reads seeds from YAML or JSON text and files.
///
/// Bounded: a seed is at most ``maximumBytes``; YAML anchors and aliases are refused (see
/// ``YAMLAnchorScanner``), and the composed document may hold at most ``maximumNodes`` nodes, so a
/// hostile seed costs time proportional to its size and never pins a core.
public enum SeedLoader {
    /// The largest seed accepted, in bytes of UTF-8.
    public static let maximumBytes = 1024 * 1024
    /// The most YAML nodes a seed may hold.
    static let maximumNodes = 200_000

    /// Parses a seed; JSON when the text starts with `{`, YAML otherwise.
    public static func parse(_ text: String) throws(CollabError) -> Seed {
        guard text.utf8.count <= maximumBytes else { throw .badRequest("invalid seed: larger than \(maximumBytes) bytes") }
        let trimmed = text.drop { $0.isWhitespace }
        do {
            if trimmed.first == "{" {
                let data = Data(text.utf8)
                let seed = try JSONDecoder().decode(Seed.self, from: data)
                try UnknownFields.check(try JSONSerialization.jsonObject(with: data), decodedAs: seed, what: "seed")
                return seed
            }
            return try parseYAML(text)
        } catch let error as CollabError {
            throw error
        } catch let error as DecodingError {
            throw .badRequest("invalid seed: \(error.readableDescription)")
        } catch {
            throw .badRequest("invalid seed: \(error)")
        }
    }

    private static func parseYAML(_ text: String) throws -> Seed {
        if let (line, column) = YAMLAnchorScanner.firstAnchorOrAlias(in: text) {
            throw CollabError.badRequest(
                "invalid seed: YAML anchors and aliases (& and *) are not supported (line \(line), column \(column)); "
                    + "quote a value that starts with & or *"
            )
        }
        let parser = try Parser(yaml: text)
        guard let root = try parser.singleRoot() else { throw CollabError.badRequest("invalid seed: the document is empty") }
        // The scanner errs on the side of refusing; this second look at the composed nodes catches an
        // anchor it could not see (a value right after a quoted key's `:`) before anything walks an
        // expanded tree. Nodes hold their anchors weakly: the parser keeps them alive until then.
        try withExtendedLifetime(parser) {
            var budget = maximumNodes
            try checkNodes(root, budget: &budget)
        }
        let document = try withoutNulls(root)
        let seed = try YAMLDecoder().decode(Seed.self, from: document)
        try UnknownFields.check(tree(document), decodedAs: seed, what: "seed")
        return seed
    }

    /// The document with every null mapping value (`key:`, `key: null`, `key: ~`) left out, as JSON's
    /// decoder reads `null`: an optional field stays unset and a required one is missing. Without this,
    /// Yams reads a null into a string field as the text `"null"` (or `""`). A null list item has no such
    /// reading and is refused with its place.
    private static func withoutNulls(_ node: Node) throws(CollabError) -> Node {
        switch node {
        case .scalar, .alias: return node
        case .sequence(let sequence):
            var items: [Node] = []
            for item in sequence {
                if isNull(item) {
                    let place = item.mark.map { " (line \($0.line), column \($0.column))" } ?? ""
                    throw .badRequest("invalid seed: a list item is null\(place); leave it out, or quote it if the text null is meant")
                }
                items.append(try withoutNulls(item))
            }
            return .sequence(Node.Sequence(items, sequence.tag, sequence.style, sequence.mark))
        case .mapping(let mapping):
            var pairs: [(Node, Node)] = []
            for (key, value) in mapping where !isNull(value) { pairs.append((key, try withoutNulls(value))) }
            return .mapping(Node.Mapping(pairs, mapping.tag, mapping.style, mapping.mark))
        }
    }

    /// A plain `null`, `~` or empty scalar (a quoted `'null'` is text).
    private static func isNull(_ node: Node) -> Bool {
        guard case .scalar = node else { return false }
        return node.tag == Tag(.null)
    }

    /// A composed YAML document as `JSONSerialization` would give it (scalars as strings): what
    /// ``UnknownFields`` compares the decoded seed with.
    private static func tree(_ node: Node) -> Any {
        switch node {
        case .scalar(let scalar): return scalar.string
        case .alias: return NSNull()
        case .sequence(let sequence): return sequence.map(tree)
        case .mapping(let mapping):
            var object: [String: Any] = [:]
            for (key, value) in mapping { object[key.string ?? "\(key)"] = tree(value) }
            return object
        }
    }

    private static func checkNodes(_ node: Node, budget: inout Int) throws(CollabError) {
        budget -= 1
        guard budget >= 0 else { throw .badRequest("invalid seed: more than \(maximumNodes) YAML nodes") }
        guard node.anchor == nil else { throw .badRequest("invalid seed: YAML anchors and aliases (& and *) are not supported") }
        switch node {
        case .scalar: return
        case .alias: throw .badRequest("invalid seed: YAML anchors and aliases (& and *) are not supported")
        case .sequence(let sequence):
            for child in sequence { try checkNodes(child, budget: &budget) }
        case .mapping(let mapping):
            for (key, value) in mapping {
                try checkNodes(key, budget: &budget)
                try checkNodes(value, budget: &budget)
            }
        }
    }

    /// Reads and parses a seed file.
    public static func load(path: String) throws(CollabError) -> Seed {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        if let size, size > maximumBytes { throw .badRequest("the seed file '\(path)' is larger than \(maximumBytes) bytes") }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw .badRequest("cannot read the seed file '\(path)'")
        }
        return try parse(text)
    }
}
