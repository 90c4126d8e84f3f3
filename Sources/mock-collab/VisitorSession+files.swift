import CollabClient
import CollabWire
import Foundation

extension VisitorSession {
    /// `file PATH` uploads a local file (streamed) into the current conversation; `download FILEID
    /// [PATH]` fetches one of its files, into PATH or only to report it.
    func transferFile(_ command: String, _ argument: String?) async throws {
        let conversationId = try currentConversationId()
        guard let argument, !argument.isEmpty else { throw VisitorInputError("\(command) needs \(command == "file" ? "a path" : "a file id")") }
        if command == "file" {
            let url = URL(fileURLWithPath: (argument as NSString).expandingTildeInPath)
            let message = try await client.uploadFile(url, in: conversationId)
            output.write([
                "type": "result", "command": "file", "messageId": message.id, "fileId": message.file?.id ?? "", "name": message.file?.name ?? "",
                "mimeType": message.file?.mimeType ?? "", "size": message.file?.size ?? 0,
            ])
            return
        }
        let parts = argument.split(separator: " ", maxSplits: 1).map(String.init)
        let destination = parts.count > 1 ? URL(fileURLWithPath: (parts[1] as NSString).expandingTildeInPath) : nil
        let download = try await client.downloadFile(parts[0], in: conversationId, to: destination)
        output.write([
            "type": "result", "command": "download", "fileId": parts[0], "size": download.byteCount, "mimeType": download.contentType ?? "",
            "etag": download.etag ?? "",
        ])
    }
}
