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

extension WebEntity {
    /// Shows `record`'s id, account, timestamps and version, under the vendor's names.
    mutating func showRecordFields(of record: some StoredRecordFields) {
        header.id = record.id
        header.accountId = record.accountId
        header.creationTimestamp = record.creationTimestamp
        header.modificationTimestamp = record.modificationTimestamp
        header.version = record.version
    }
}

extension User: StoredRecordFields {}
extension FileUploadInterceptor: StoredRecordFields {}
extension MessageInterceptor: StoredRecordFields {}
