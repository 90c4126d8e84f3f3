import Foundation

/// Finds the fields of a document that its decoded value does not keep: keys its type does not know,
/// such as a misspelt `pathh` in a fault rule's `match`, which `Decodable` passes over in silence and
/// which would leave the rule matching more than its author meant.
///
/// The check compares the document with the value's own encoding, so it needs no list of known keys:
/// a key the type read is in its encoding (every ``Seed`` and ``FaultRule`` type encodes what it
/// decodes). Keys whose value is null are passed over, as an absent optional encodes to nothing.
public enum UnknownFields {
    /// The path of the first key of `document` (a tree as `JSONSerialization` makes it) that `value`'s
    /// encoding lacks, as `accounts[0].webhookRegistrations[1].sekret`; `nil` when there is none (or the
    /// value cannot be encoded).
    public static func firstPath(in document: Any, decodedAs value: some Encodable) -> String? {
        guard let data = try? JSONEncoder().encode(value),
            let encoded = try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
        else { return nil }
        return firstPath(document, encoded, path: "")
    }

    /// Refuses a document with a key its type does not know: a 400 naming the key and where it is.
    /// - Parameter what: What the document is, for the message ("seed", "fault rule").
    public static func check(_ document: Any, decodedAs value: some Encodable, what: String) throws(CollabError) {
        guard let path = firstPath(in: document, decodedAs: value) else { return }
        throw .badRequest("invalid \(what): unknown field '\(path)' (misspelt, or not part of the format)")
    }

    private static func firstPath(_ document: Any, _ encoded: Any, path: String) -> String? {
        if let object = document as? [String: Any], let kept = encoded as? [String: Any] {
            for key in object.keys.sorted() {
                guard let child = object[key], !(child is NSNull) else { continue }
                let childPath = path.isEmpty ? key : "\(path).\(key)"
                guard let keptChild = kept[key] else { return childPath }
                if let found = firstPath(child, keptChild, path: childPath) { return found }
            }
        } else if let array = document as? [Any], let kept = encoded as? [Any] {
            for (index, (child, keptChild)) in zip(array, kept).enumerated() {
                if let found = firstPath(child, keptChild, path: "\(path)[\(index)]") { return found }
            }
        }
        return nil
    }
}
