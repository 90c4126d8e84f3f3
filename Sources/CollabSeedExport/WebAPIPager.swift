import CollabClient
import CollabWire
import Foundation

/// Why the exporter could not read something.
public struct SeedExportError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status the server answered, if it answered.
    public var status: Int?
    public var message: String
    public var description: String { message }

    init(status: Int?, _ message: String) {
        self.status = status
        self.message = message
    }
}

/// Reads the Web API with JSON values: single reads and searches page by page.
struct WebAPIPager: Sendable {
    let transport: HTTPTransport
    let prefix: String
    let pageSize: Int

    /// One search's items, at most `limit` of them, and whether the server had more.
    struct Page: Sendable {
        var items: [JSONValue]
        var truncated: Bool
    }

    /// Sends one request and decodes a JSON answer; a non-2xx answer is an error naming its status.
    func call(_ method: String, _ path: String, query: [(String, String)] = [], body: JSONValue? = nil) async throws(SeedExportError) -> JSONValue {
        let data: Data?
        do { data = try body.map { try JSONEncoder().encode($0) } } catch {
            throw SeedExportError(status: nil, "cannot encode the request to \(path)")
        }
        let response: HTTPTransport.RawResponse
        do {
            response = try await transport.raw(method, prefix + path, query: query, body: data)
        } catch {
            throw SeedExportError(status: nil, error.message)
        }
        guard (200..<300).contains(response.status) else {
            let detail = (try? JSONDecoder().decode(WebAPIError.self, from: response.body))?.errorMessage
            throw SeedExportError(status: response.status, "\(method) \(path) answered \(response.status)\(detail.map { ": \($0)" } ?? "")")
        }
        if response.body.isEmpty { return .null }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: response.body)
        } catch {
            throw SeedExportError(status: response.status, "\(method) \(path) answered something that is not JSON")
        }
    }

    /// Every item of a search (`POST {path}` with `offset`/`limit`), following `hasMoreItems`, up to `limit`.
    func search(_ path: String, queryType: String, expand: [String] = [], limit: Int) async throws(SeedExportError) -> Page {
        // Each round adds at least one item or ends, so a server that always says `hasMoreItems` (or
        // repeats a page) still stops at `limit`.
        let limit = max(limit, 1)
        var items: [JSONValue] = []
        var offset = 0
        let query = expand.isEmpty ? [] : [("expand", expand.joined(separator: ","))]
        while true {
            let size = min(max(pageSize, 1), limit - items.count)
            let body = JSONValue.object(["$_type": .string(queryType), "offset": .int(offset), "limit": .int(size)])
            let result = try await call("POST", path, query: query, body: body)
            let page = result["items"]?.arrayValue ?? []
            items += page.prefix(size)
            let more = result["hasMoreItems"]?.boolValue ?? false
            if !more || page.isEmpty { return Page(items: items, truncated: false) }
            if items.count >= limit { return Page(items: items, truncated: true) }
            // The vendor's answer says where the next page starts; without it, count.
            offset = result["nextOffset"]?.intValue ?? (offset + page.count)
        }
    }
}

extension JSONValue {
    subscript(key: String) -> JSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields[key]
    }

    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var intValue: Int? {
        if case .int(let value) = self { return value }
        return nil
    }

    var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// A `{String: String}` map (configuration, metadata); other values are left out.
    var stringMap: [String: String]? {
        guard case .object(let fields) = self else { return nil }
        return fields.compactMapValues(\.stringValue)
    }
}
