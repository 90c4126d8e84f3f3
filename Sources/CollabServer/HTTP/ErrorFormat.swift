public import CollabCore
import CollabWire
import Foundation
import Logging
public import Hummingbird
import HTTPTypes

/// How a surface writes its errors: the Web API `Error` body, or the typed body of the mobile and
/// agent APIs whose `type` mirrors the SDK's client error types. The one place a failure becomes an
/// answer; the message never holds secrets.
enum ErrorFormat: Sendable {
    /// `{"$_type":"Error","statusCode":…,"errorMessage":…}`, with a Basic challenge on 401.
    case webAPI
    /// `{"type":"NOT_FOUND","message":…,"status":404}`.
    case typed

    /// The answer to any failure: domain errors, Hummingbird's own (unknown route, body too large),
    /// other typed refusals, and anything unexpected, which is logged and answered with 500.
    func response(for error: any Error, request: Request, context: CollabRequestContext) -> Response {
        switch error {
        case let error as CollabError:
            var answer = response(error.kind, status: error.status, message: error.message, request: request)
            if let seconds = error.retryAfterSeconds { answer.headers[.retryAfter] = String(seconds) }
            return answer
        case let error as HTTPError:
            let message = error.body ?? Self.defaultMessage(for: error.status, request: request)
            guard self == .webAPI else {
                let kind = CollabError.Kind(status: error.status)
                return response(kind, status: kind.status, message: message, request: request)
            }
            var headers = error.headers
            headers[.contentType] = nil
            headers[.contentLength] = nil
            return ErrorBody.response(status: error.status, message: message, headers: headers)
        case let error as any HTTPResponseError:
            return (try? error.response(from: request, context: context)) ?? Response(status: error.status)
        default:
            context.logger.error("unhandled error", metadata: ["error": "\(String(reflecting: error))", "path": "\(request.uri.path)"])
            return response(.internalError, status: .internalServerError, message: "internal error", request: request)
        }
    }

    /// An error answer of `kind` with `status` (they differ only for injected faults).
    func response(_ kind: CollabError.Kind, status: HTTPResponse.Status, message: String, request: Request) -> Response {
        switch self {
        case .typed:
            return JSONBody.response(APIErrorBody(type: kind.typeName, message: message, status: status.code), status: status)
        case .webAPI:
            var headers = HTTPFields()
            // Scripts (the web console) mark their requests: a Basic challenge would make the browser
            // pop up its own login dialog over the page's (the convention Spring Security follows too).
            if kind == .unauthorized, request.headers[.xRequestedWith] != "XMLHttpRequest" {
                headers[.wwwAuthenticate] = "Basic realm=\"mock-collab\", charset=\"UTF-8\""
            }
            return ErrorBody.response(status: status, message: message, headers: headers)
        }
    }

    private static func defaultMessage(for status: HTTPResponse.Status, request: Request) -> String {
        switch status {
        case .notFound: "no route for \(request.method.rawValue) \(request.uri.path)"
        case .methodNotAllowed: "\(request.method.rawValue) is not allowed on \(request.uri.path)"
        case .contentTooLarge: "request body is too large"
        default: status.reasonPhrase
        }
    }
}

/// Answers every failure of a surface's routes in the surface's ``ErrorFormat``.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = CollabRequestContext
    let format: ErrorFormat

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            if let error = error as? CollabError, error.kind == .requestTimeout {
                // The body fell behind the minimum rate and is read no further; without this the server
                // would drain the rest after the answer, at the client's pace.
                ConnectionGuardHandler.closeSoon(connectionOf: context.channel)
            }
            return format.response(for: error, request: request, context: context)
        }
    }
}

extension CollabError.Kind {
    /// The HTTP status a failure of this kind answers with.
    var status: HTTPResponse.Status {
        switch self {
        case .badRequest, .unsupportedServerVersion: .badRequest
        case .unauthorized, .invalidApiKey: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .payloadTooLarge: .contentTooLarge
        case .tooManyRequests: .tooManyRequests
        case .requestTimeout: .requestTimeout
        case .unavailable: .serviceUnavailable
        case .internalError: .internalServerError
        }
    }

    /// The kind a status stands for in the typed body (an unusual 4xx is a bad request).
    init(status: HTTPResponse.Status) {
        switch status.code {
        case 401: self = .unauthorized
        case 403: self = .forbidden
        case 404: self = .notFound
        case 408: self = .requestTimeout
        case 409: self = .conflict
        case 413: self = .payloadTooLarge
        case 429: self = .tooManyRequests
        case 503: self = .unavailable
        case 500...599: self = .internalError
        default: self = .badRequest
        }
    }

    /// The mobile and agent APIs' error type, mirroring the SDK's client error types.
    var typeName: String {
        switch self {
        case .badRequest: "BAD_REQUEST"
        case .unauthorized: "AUTHORIZATION"
        case .invalidApiKey: "INVALID_API_KEY"
        case .unsupportedServerVersion: "UNSUPPORTED_SERVER_VERSION"
        case .forbidden: "FORBIDDEN"
        case .notFound: "NOT_FOUND"
        case .conflict: "CONFLICT"
        case .payloadTooLarge: "PAYLOAD_TOO_LARGE"
        case .tooManyRequests: "RATE_LIMITED"
        case .requestTimeout: "REQUEST_TIMEOUT"
        case .unavailable: "UNAVAILABLE"
        case .internalError: "INTERNAL"
        }
    }
}

extension CollabError: ResponseGenerator {}
extension CollabError: HTTPResponseError {
    public var status: HTTPResponse.Status { kind.status }

    /// The Web API `Error` body: what a failure outside every surface's stack answers with (inside
    /// one, its ``ErrorMiddleware`` answers in the surface's format first).
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        ErrorBody.response(status: status, message: message, headers: retryAfterSeconds.map { [.retryAfter: String($0)] } ?? [:])
    }
}

/// Builds the Web API `Error` body.
enum ErrorBody {
    static func response(status: HTTPResponse.Status, message: String, headers: HTTPFields = [:]) -> Response {
        let body = WebAPIError(statusCode: status.code, statusDescription: status.reasonPhrase, errorMessage: message)
        return JSONBody.response(body, status: status, headers: headers)
    }
}

extension HTTPField.Name {
    /// `X-Requested-With: XMLHttpRequest` marks a request made by a script.
    static let xRequestedWith = Self("X-Requested-With")!
}
