public import CollabWire
import Foundation

/// A file-upload interceptor (the vendor's `FileUploadInterceptorData`): before a file is accepted,
/// its endpoint gets a signed `file_upload_interceptor.new_file` event with a token and a download
/// link, and approves or rejects the upload with that token (`fileuploadinterceptors/approveFileUpload`,
/// `rejectFileUpload`). Interceptors run in `order`; the first rejection ends the upload.
public struct FileUploadInterceptor: Interceptor, Codable, Equatable, Identifiable {
    public var id: String
    public var accountId: String
    public var name: String
    public var description: String?
    /// Position among the account's interceptors (lower first).
    public var order: Int
    /// Types the interceptor reviews (a whole-string match); `nil`: every type.
    public var mimeTypeRegex: String?
    public var status: WebhookRegistration.Status
    public var endpoint: String
    public var apiVersion: String
    /// The HMAC key of `x-unblu-signature-256`.
    public var secret: String
    public var creationTimestamp: Timestamp
    public var modificationTimestamp: Timestamp
    public var version: Int64

    /// Whether the interceptor reviews files of `mimeType`.
    ///
    /// An admin's pattern may backtrack without end on some types (`(a+)+`), and the uploader chooses
    /// the type of a text file: matching stops after about ``matchingBudget`` progress reports of the
    /// engine (each some thousands of steps, together a few milliseconds), and a pattern that has not
    /// decided by then reviews the file, as an interceptor in doubt should.
    public func reviews(_ mimeType: String) -> Bool {
        guard status == .active else { return false }
        guard let mimeTypeRegex, !mimeTypeRegex.isEmpty else { return true }
        // Validation compiled this very pattern; one stored before that did not compile is reviewed, as in doubt.
        guard let regex = try? NSRegularExpression(pattern: Self.anchored(mimeTypeRegex)) else { return true }
        var matched = false
        var reports = 0
        let range = NSRange(mimeType.startIndex..., in: mimeType)
        regex.enumerateMatches(in: mimeType, options: [.reportProgress], range: range) { result, _, stop in
            if result != nil {
                matched = true
                stop.pointee = true
                return
            }
            reports += 1
            if reports >= Self.matchingBudget {
                matched = true
                stop.pointee = true
            }
        }
        return matched
    }

    /// How many progress reports of the regular-expression engine a type match may take.
    static let matchingBudget = 100

    /// The pattern a type is matched with: `mimeTypeRegex` against the whole type. Validation compiles
    /// this, not the admin's text alone (`\Q…` without `\E`, or a trailing `#` comment in `(?x)`,
    /// compiles alone but swallows the closing group).
    static func anchored(_ mimeTypeRegex: String) -> String { "^(?:\(mimeTypeRegex))$" }
}

/// The editable fields of a file-upload interceptor.
public struct FileUploadInterceptorInput: InterceptorInput {
    public var name: String?
    public var description: String?
    public var order: Int?
    public var mimeTypeRegex: String?
    public var status: WebhookRegistration.Status?
    public var endpoint: String?
    public var apiVersion: String?
    public var secret: String?

    public func validateOwnFields() throws(CollabError) {
        guard order != nil else { throw .badRequest("order is required") }
        if let mimeTypeRegex, !mimeTypeRegex.isEmpty {
            guard Limits.fits(mimeTypeRegex, 500), (try? NSRegularExpression(pattern: FileUploadInterceptor.anchored(mimeTypeRegex))) != nil
            else {
                throw .badRequest("mimeTypeRegex is not a valid regular expression of at most 500 characters")
            }
        }
    }
}

extension FileUploadInterceptorInput {
    /// The fields a `FileUploadInterceptorData` body (a Web API call's or a seed's) carries.
    /// - Throws: `badRequest` for a `webhookStatus` the vendor's `ERegistrationStatus` does not have.
    public init(_ body: WebFileUploadInterceptor) throws(CollabError) {
        self.init(
            name: body.name, description: body.description, order: body.order, mimeTypeRegex: body.mimeTypeRegex,
            status: try WebhookRegistration.Status.parseIfPresent(body.webhookStatus, field: "webhookStatus"),
            endpoint: body.webhookEndpoint, apiVersion: body.webhookApiVersion, secret: body.webhookSecret
        )
    }
}

extension FileUploadInterceptor {
    public static var kind: EntityKind { .fileUploadInterceptor }
    public static var entityName: String { "FileUploadInterceptor" }
    public static var noun: String { "file upload interceptor" }
    public static var table: WritableKeyPath<AccountState, [String: FileUploadInterceptor]> { \.fileUploadInterceptors }

    /// In `order`, then by id.
    public static func precedes(_ lhs: Self, _ rhs: Self) -> Bool { (lhs.order, lhs.id) < (rhs.order, rhs.id) }

    public static func make(_ input: FileUploadInterceptorInput, id: String, accountId: String, secret: String, now: Timestamp) -> Self {
        FileUploadInterceptor(
            id: id, accountId: accountId, name: input.name!, description: input.description, order: input.order!,
            mimeTypeRegex: input.mimeTypeRegex.flatMap { $0.isEmpty ? nil : $0 }, status: input.status ?? .active, endpoint: input.endpoint!,
            apiVersion: "V4", secret: secret, creationTimestamp: now, modificationTimestamp: now, version: 1
        )
    }

    public mutating func applyOwnFields(_ input: FileUploadInterceptorInput) {
        order = input.order!
        mimeTypeRegex = input.mimeTypeRegex.flatMap { $0.isEmpty ? nil : $0 }
    }
}

extension Dictionary where Key == String, Value == FileUploadInterceptor {
    /// Creates the interceptor a seed describes, or updates the one with its name; `report` counts which.
    mutating func apply(seed body: WebFileUploadInterceptor, context: OperationContext, report: inout SeedReport) throws(CollabError) {
        let input = try FileUploadInterceptorInput(body)
        guard let existing = values.first(where: { $0.name == body.name }) else {
            _ = try createInterceptor(input, accountId: "", context: context)
            report.created += 1
            return
        }
        var changed = self
        var updated = try changed.updateInterceptor(id: existing.id, version: existing.version, input, context: context)
        updated.version = existing.version
        updated.modificationTimestamp = existing.modificationTimestamp
        guard updated != existing else {
            report.unchanged += 1
            return
        }
        self = changed
        report.updated += 1
    }


    /// The active interceptors that review files of `mimeType`, in order.
    public func reviewing(_ mimeType: String) -> [FileUploadInterceptor] {
        inCallOrder.filter { $0.reviews(mimeType) }
    }
}

extension AccountState {
    /// The account's active interceptors, in order: which of them review a file's type is for the
    /// caller to work out (``FileUploadInterceptor/reviews(_:)``), after it let go of the account.
    public var activeFileUploadInterceptors: [FileUploadInterceptor] {
        fileUploadInterceptors.inCallOrder.filter { $0.status == .active }
    }
}
