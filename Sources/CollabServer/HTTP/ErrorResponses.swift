public import CollabCore
import CollabWire
import Foundation
import Logging
public import Hummingbird
import HTTPTypes

extension CollabError.Kind {
    /// The HTTP status a failure of this kind answers with.
    var status: HTTPResponse.Status {
        switch self {
        case .badRequest: .badRequest
        case .unauthorized, .invalidApiKey: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .payloadTooLarge: .contentTooLarge
        case .tooManyRequests: .tooManyRequests
        case .unavailable: .serviceUnavailable
        case .internalError: .internalServerError
        }
    }
}

extension CollabError: ResponseGenerator {}
extension CollabError: HTTPResponseError {
    public var status: HTTPResponse.Status { kind.status }

    /// The error body for the request's surface: the typed body on the mobile and agent APIs, the
    /// Web API `Error` body everywhere else. The message never holds secrets.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        if ErrorBody.usesTypedBody(request.uri.path) {
            return JSONBody.response(APIErrorBody(type: typeName, message: message, status: status.code), status: status)
        }
        var headers = HTTPFields()
        // Scripts (the web console) mark their requests: a Basic challenge would make the browser
        // pop up its own login dialog over the page's (the convention Spring Security follows too).
        if kind == .unauthorized, request.headers[.xRequestedWith] != "XMLHttpRequest" {
            headers[.wwwAuthenticate] = "Basic realm=\"mock-collab\", charset=\"UTF-8\""
        }
        return ErrorBody.response(status: status, message: message, headers: headers)
    }

    /// The mobile and agent APIs' error type, mirroring the SDK's client error types.
    var typeName: String {
        switch kind {
        case .badRequest: "BAD_REQUEST"
        case .unauthorized: "AUTHORIZATION"
        case .invalidApiKey: "INVALID_API_KEY"
        case .forbidden: "FORBIDDEN"
        case .notFound: "NOT_FOUND"
        case .conflict: "CONFLICT"
        case .payloadTooLarge: "PAYLOAD_TOO_LARGE"
        case .tooManyRequests: "RATE_LIMITED"
        case .unavailable: "UNAVAILABLE"
        case .internalError: "INTERNAL"
        }
    }
}

/// Builds the Web API `Error` body.
enum ErrorBody {
    /// Whether a path belongs to a surface with the typed error body (mobile and agent APIs).
    static func usesTypedBody(_ path: String) -> Bool {
        path.hasPrefix("/mobile/") || path.hasPrefix("/agent/")
    }

    static func response(status: HTTPResponse.Status, message: String, headers: HTTPFields = [:]) -> Response {
        let body = WebAPIError(statusCode: status.code, statusDescription: status.reasonPhrase, errorMessage: message)
        return JSONBody.response(body, status: status, headers: headers)
    }
}

/// Turns every failure into a typed error body: domain errors, Hummingbird's own (unknown route,
/// wrong method, body too large) and anything unexpected, which is logged and answered with 500.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = CollabRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as CollabError {
            return try error.response(from: request, context: context)
        } catch let error as HTTPError {
            var headers = error.headers
            headers[.contentType] = nil
            headers[.contentLength] = nil
            let message = error.body ?? defaultMessage(for: error.status, request: request)
            if ErrorBody.usesTypedBody(request.uri.path) {
                let kind: CollabError.Kind = switch error.status.code {
                case 404: .notFound
                case 413: .payloadTooLarge
                case 401: .unauthorized
                default: .badRequest
                }
                return try CollabError(kind, message).response(from: request, context: context)
            }
            return ErrorBody.response(status: error.status, message: message, headers: headers)
        } catch {
            context.logger.error("unhandled error", metadata: ["error": "\(String(reflecting: error))", "path": "\(request.uri.path)"])
            return ErrorBody.response(status: .internalServerError, message: "internal error")
        }
    }

    private func defaultMessage(for status: HTTPResponse.Status, request: Request) -> String {
        switch status {
        case .notFound: "no route for \(request.method.rawValue) \(request.uri.path)"
        case .methodNotAllowed: "\(request.method.rawValue) is not allowed on \(request.uri.path)"
        case .contentTooLarge: "request body is too large"
        default: status.reasonPhrase
        }
    }
}

extension HTTPField.Name {
    /// `X-Requested-With: XMLHttpRequest` marks a request made by a script.
    static let xRequestedWith = Self("X-Requested-With")!
}
