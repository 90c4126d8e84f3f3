import Foundation

/// Checks a JSON value against the vendor's schemas as `VendorEventSchemas` records them: every
/// property must be one the schema declares, of the declared type, enums within their values, oneOf
/// values one of the alternatives (chosen by `$_type`). Returns the problems, empty when it conforms.
enum VendorSchemaCheck {
    static func problems(_ data: Data, schema: String) -> [String] {
        guard let value = try? JSONSerialization.jsonObject(with: data) else { return ["not JSON"] }
        var problems: [String] = []
        check(value, ref: schema, path: "$", problems: &problems)
        return problems
    }

    private static func check(_ value: Any, ref name: String, path: String, problems: inout [String]) {
        if let values = VendorEventSchemas.enums[name] {
            guard let string = value as? String, values.contains(string) else { return problems.append("\(path): \(value) is not a \(name)") }
            return
        }
        if let alternatives = VendorEventSchemas.oneOf[name] {
            guard let object = value as? [String: Any], let type = object["$_type"] as? String, alternatives.contains(type) else {
                return problems.append("\(path): not one of \(alternatives)")
            }
            return check(value, ref: type, path: path, problems: &problems)
        }
        guard let properties = VendorEventSchemas.properties[name] else { return problems.append("\(path): unknown schema \(name)") }
        guard let object = value as? [String: Any] else { return problems.append("\(path): \(name) must be an object") }
        for (key, member) in object {
            guard let shape = properties[key] else {
                problems.append("\(path).\(key): \(name) has no such property")
                continue
            }
            check(member, shape: shape, path: "\(path).\(key)", problems: &problems)
        }
    }

    private static func check(_ value: Any, shape: String, path: String, problems: inout [String]) {
        if shape.hasPrefix("ref:") { return check(value, ref: String(shape.dropFirst(4)), path: path, problems: &problems) }
        if shape.hasPrefix("enum:") {
            let values = shape.dropFirst(5).split(separator: "|").map(String.init)
            if let string = value as? String, values.contains(string) { return }
            return problems.append("\(path): \(value) is not one of \(values)")
        }
        if shape.hasPrefix("array:") {
            guard let items = value as? [Any] else { return problems.append("\(path): must be an array") }
            for (index, item) in items.enumerated() { check(item, shape: String(shape.dropFirst(6)), path: "\(path)[\(index)]", problems: &problems) }
            return
        }
        let ok = switch shape {
        case "string": value is String
        case "integer": (value as? NSNumber).map { Double(truncating: $0) == Double(Int64(truncating: $0)) } ?? false
        case "number": value is NSNumber
        case "boolean": value is Bool || value is NSNumber
        case "object": value is [String: Any]
        default: true
        }
        if !ok { problems.append("\(path): \(value) is not \(shape)") }
    }
}
