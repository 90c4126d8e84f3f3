import CollabCore
import Foundation
import Hummingbird
import NIOCore
import NIOFoundationCompat

/// JSON request and response bodies with bounded size and clear decoding errors.
enum JSONBody {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    /// A JSON response.
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        do {
            let data = try encoder.encode(value)
            return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
        } catch {
            return Response(status: .internalServerError)
        }
    }

    /// Collects the body, refusing more than `limit` bytes.
    static func collect(_ request: Request, limit: Int) async throws(CollabError) -> ByteBuffer {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw CollabError(.payloadTooLarge, "request body of \(length) bytes exceeds the limit of \(limit) bytes")
        }
        do {
            return try await request.body.collect(upTo: limit)
        } catch {
            if let httpError = error as? HTTPError, httpError.status == .contentTooLarge {
                throw CollabError(.payloadTooLarge, "request body exceeds the limit of \(limit) bytes")
            }
            throw CollabError(.badRequest, "could not read the request body")
        }
    }

    /// Decodes a JSON body, turning every decoding failure into a 400 that says where and why.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws(CollabError) -> T {
        let buffer = try await collect(request, limit: limit)
        guard buffer.readableBytes > 0 else { throw .badRequest("a JSON request body is required") }
        return try decode(type, from: Data(buffer: buffer))
    }

    /// Decodes JSON data with the same error mapping.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(CollabError) -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw .badRequest(describe(error))
        } catch {
            throw .badRequest("the request body is not valid JSON")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        error.readableDescription
    }
}

extension CollabEnvironment {
    /// Decodes a JSON body within the configured size limit.
    func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws(CollabError) -> T {
        try await JSONBody.decode(type, from: request, limit: configuration.maxBodySize)
    }
}

/// The 204 answer of delete and logout operations.
let noContent = Response(status: .noContent)
