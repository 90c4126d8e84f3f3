import CollabClient
import Foundation
import Testing

extension HTTPTransport {
    /// Sends a Web API request (under `/app/rest/v4`), expects `status`, and checks the answer against
    /// the vendor's `schema` (an error's body against `Error`).
    /// - Returns: The answer as a JSON object (empty when it is none).
    func webAPI(
        _ method: String, _ path: String, _ body: String? = nil, query: [(String, String)] = [], status: Int = 200, schema: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String: Any] {
        let response = try await raw(method, "/app/rest/v4/\(path)", query: query, body: body.map { Data($0.utf8) })
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(response.status == status, "\(method) \(path) → \(response.status): \(text)", sourceLocation: sourceLocation)
        if let schema {
            let problems = VendorSchemaCheck.problems(response.body, schema: schema)
            #expect(problems.isEmpty, "\(path) does not fit \(schema): \(problems)", sourceLocation: sourceLocation)
        }
        if response.status >= 400 {
            let problems = VendorSchemaCheck.problems(response.body, schema: "Error")
            #expect(problems.isEmpty, "\(path): the error body does not fit Error: \(problems)", sourceLocation: sourceLocation)
        }
        return (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
    }
}
