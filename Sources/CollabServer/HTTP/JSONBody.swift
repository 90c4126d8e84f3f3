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

    /// Collects the body, refusing more than `limit` bytes, and a body that falls behind the minimum
    /// rate (a 408, ``CollabError/Kind/requestTimeout``).
    ///
    /// The rate is checked as each piece arrives — no task watches the body — so a body that stops
    /// altogether is ended by the connection's idle timeout, and one that trickles is refused at the
    /// first piece past its allowance: a trickle holds a request at most its allowance plus one idle
    /// timeout.
    static func collect(_ request: Request, limit: Int, pace: BodyPace) async throws(CollabError) -> ByteBuffer {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw CollabError(.payloadTooLarge, "request body of \(length) bytes exceeds the limit of \(limit) bytes")
        }
        do {
            return try await pace.collect(request.body, limit: limit)
        } catch let error as CollabError {
            throw error
        } catch {
            throw CollabError(.badRequest, "could not read the request body")
        }
    }

    /// Decodes a JSON body, turning every decoding failure into a 400 that says where and why.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int, pace: BodyPace) async throws(CollabError) -> T {
        let buffer = try await collect(request, limit: limit, pace: pace)
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
    /// Decodes a JSON body within the configured size limit and minimum rate.
    func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws(CollabError) -> T {
        try await JSONBody.decode(type, from: request, limit: configuration.maxBodySize, pace: bodyPace)
    }

    /// Decodes a JSON body like ``decode(_:from:)`` and refuses a key `T` does not know (see
    /// ``UnknownFields``): for the control API's rules and seeds, where a misspelt key would quietly
    /// change what the body means.
    func decodeStrictly<T: Codable>(_ type: T.Type, from request: Request, what: String) async throws(CollabError) -> T {
        let buffer = try await collectBody(request)
        guard buffer.readableBytes > 0 else { throw .badRequest("a JSON request body is required") }
        let data = Data(buffer: buffer)
        let value = try JSONBody.decode(type, from: data)
        if let document = try? JSONSerialization.jsonObject(with: data) { try UnknownFields.check(document, decodedAs: value, what: what) }
        return value
    }

    /// Collects a request body within `limit` bytes (default: the configured size limit) and the
    /// minimum rate.
    func collectBody(_ request: Request, limit: Int? = nil) async throws(CollabError) -> ByteBuffer {
        try await JSONBody.collect(request, limit: limit ?? configuration.maxBodySize, pace: bodyPace)
    }

    /// The minimum rate request bodies are held to (uploads' `--upload-min-rate`), on the upload clock.
    var bodyPace: BodyPace { BodyPace(rate: configuration.files.minimumRate, clock: configuration.uploadClock) }
}

/// The 204 answer of delete and logout operations.
let noContent = Response(status: .noContent)
