public import CollabWire
public import Foundation

/// The Web API form of declared entities: the entity's own JSON with its `$_type`, and drafts decoded
/// from request bodies and seed files with their sizes bounded.
public enum EntityWire {
    /// The longest string any field of a declared entity takes (declarations bound their fields further).
    public static let stringLength = Limits.propertyValueLength
    /// The most items any list of a declared entity holds.
    public static let listLength = Limits.readMultipleCount
    /// The deepest nesting of objects and lists in a declared entity.
    public static let depth = 12

    /// `entity`'s own JSON (as stored: without `$_type`, with every field it keeps).
    static func object<E: DeclaredEntity>(_ entity: E) -> JSONValue {
        // Encoding our own model types cannot fail: they hold only strings, numbers, lists and maps.
        let data = (try? RecordCoding.encoder.encode(entity)) ?? Data("{}".utf8)
        return (try? JSONDecoder().decode(JSONValue.self, from: data)) ?? .object([:])
    }

    /// The entity a JSON object of its own fields makes, or `nil` when they do not fit its type.
    static func entity<E: DeclaredEntity>(_ type: E.Type, from value: JSONValue) -> E? {
        guard let data = try? RecordCoding.encoder.encode(value) else { return nil }
        return try? JSONDecoder().decode(E.self, from: data)
    }

    /// `entity` as the Web API shows it, with the ``EntityDeclaration/expandable`` fields `expanding` names.
    public static func json<E: DeclaredEntity>(_ entity: E, expanding: Set<String> = []) -> JSONValue {
        guard case .object(var object) = Self.object(entity) else { return .object([:]) }
        for field in E.declaration.storedOnly { object[field] = nil }
        for field in E.declaration.expandable {
            object[field] = expanding.contains(field) ? object[field] ?? .object([:]) : nil
        }
        object["$_type"] = .string(E.declaration.wireType(entity))
        return .object(object)
    }

    /// Decodes a request body into a draft of `type`: the fields the layer owns (id, account, timestamps,
    /// version) may be absent; every string, list and nesting is bounded; a `$_type` must be the
    /// entity's.
    /// - Throws: `badRequest` naming the field at fault.
    public static func draft<E: DeclaredEntity>(_ type: E.Type, from data: Data) throws(CollabError) -> E {
        let value: JSONValue
        do { value = try JSONDecoder().decode(JSONValue.self, from: data) } catch { throw .badRequest("the request body is not valid JSON") }
        return try draft(E.self, from: value, at: "")
    }

    /// Decodes a draft of `type` from a JSON value found at `path` (empty for a request body).
    public static func draft<E: DeclaredEntity>(_ type: E.Type, from value: JSONValue, at path: String) throws(CollabError) -> E {
        guard case .object(var object) = value else { throw .badRequest("\(path.isEmpty ? "the body" : path) must be a JSON object") }
        try checkBounds(value, at: path, depth: 0)
        var given: String?
        if case .string(let type)? = object.removeValue(forKey: "$_type") { given = type }
        if object["id"] == nil { object["id"] = .string("") }
        if object["accountId"] == nil { object["accountId"] = .string("") }
        if object["creationTimestamp"] == nil { object["creationTimestamp"] = .int(0) }
        let entity: E
        do {
            let data = try RecordCoding.encoder.encode(JSONValue.object(object))
            entity = try JSONDecoder().decode(E.self, from: data)
        } catch let error as DecodingError {
            let message = error.readableDescription
            throw .badRequest(path.isEmpty ? message : "\(path).\(message)")
        } catch {
            throw .badRequest("\(path.isEmpty ? "the body" : path) could not be decoded")
        }
        let expected = E.declaration.wireType(entity)
        if let given, given != expected { throw .badRequest("\(path.isEmpty ? "" : path + ".")$_type must be '\(expected)', not '\(given)'") }
        return entity
    }

    private static func checkBounds(_ value: JSONValue, at path: String, depth: Int) throws(CollabError) {
        let name = path.isEmpty ? "the body" : path
        guard depth <= Self.depth else { throw .badRequest("\(name) nests deeper than \(Self.depth) levels") }
        switch value {
        case .string(let text):
            guard text.utf8.count <= stringLength else { throw .badRequest("\(name) is longer than \(stringLength) bytes") }
        case .array(let items):
            guard items.count <= listLength else { throw .badRequest("\(name) has more than \(listLength) items") }
            for (position, item) in items.enumerated() { try checkBounds(item, at: "\(path)[\(position)]", depth: depth + 1) }
        case .object(let fields):
            guard fields.count <= Limits.propertyCount else { throw .badRequest("\(name) has more than \(Limits.propertyCount) fields") }
            for (key, field) in fields {
                guard key.utf8.count <= Limits.propertyKeyLength else {
                    throw .badRequest("\(name) has a field name longer than \(Limits.propertyKeyLength) bytes")
                }
                try checkBounds(field, at: path.isEmpty ? key : "\(path).\(key)", depth: depth + 1)
            }
        case .int, .double, .bool, .null:
            return
        }
    }
}

extension Limits {
    /// Validates a string field of a declared entity against the vendor's bound.
    public static func check(_ value: String?, field: String, max: Int, required: Bool = false) throws(CollabError) {
        guard let value, !value.isEmpty else {
            if required { throw .badRequest("\(field) is required and must not be empty") }
            return
        }
        guard Limits.fits(value, max) else { throw .badRequest("\(field) is longer than \(max) characters") }
    }

    /// Validates a value of a vendor enum.
    public static func check(_ value: String?, field: String, oneOf allowed: [String], required: Bool = false) throws(CollabError) {
        guard let value else {
            if required { throw .badRequest("\(field) is required (one of \(allowed.joined(separator: ", ")))") }
            return
        }
        guard allowed.contains(value) else { throw .badRequest("\(field) must be one of \(allowed.joined(separator: ", ")), not '\(value)'") }
    }
}
