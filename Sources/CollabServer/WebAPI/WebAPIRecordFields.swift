import CollabCore
import CollabWire

/// What every stored entity of an account carries: its id, its account, when it was created and last
/// changed, and its version (the one an update must name).
protocol StoredRecordFields {
    var id: String { get }
    var accountId: String { get }
    var creationTimestamp: Timestamp { get }
    var modificationTimestamp: Timestamp { get }
    var version: Int64 { get }
}

/// A Web API object showing a stored entity's ``StoredRecordFields``, under the vendor's names.
protocol WebRecordFields {
    var id: String? { get set }
    var accountId: String? { get set }
    var creationTimestamp: Int64? { get set }
    var modificationTimestamp: Int64? { get set }
    var version: Int64? { get set }
}

extension WebRecordFields {
    /// Shows `record`'s id, account, timestamps and version.
    mutating func showRecordFields(of record: some StoredRecordFields) {
        id = record.id
        accountId = record.accountId
        creationTimestamp = record.creationTimestamp
        modificationTimestamp = record.modificationTimestamp
        version = record.version
    }
}

extension User: StoredRecordFields {}
extension FileUploadInterceptor: StoredRecordFields {}
extension MessageInterceptor: StoredRecordFields {}

extension WebUser: WebRecordFields {}
extension WebFileUploadInterceptor: WebRecordFields {}
extension WebMessageInterceptor: WebRecordFields {}
