import CollabCore
import CollabWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Answers a file download: `Content-Type` (the sniffed type), `Content-Disposition: attachment`,
/// a strong `ETag` (the SHA-256), `If-None-Match` (304), and single `Range`s (206; an unsatisfiable or
/// malformed range is a 416 with `Content-Range: bytes */size`; several ranges get the whole file).
enum FileDownload {
    /// The byte range a `Range` header asks for, `nil` for the whole file.
    /// - Throws: `unsatisfiable` for a range outside the file or a malformed header.
    static func range(_ header: String?, size: Int64) throws(RangeError) -> ClosedRange<Int64>? {
        guard let header = header?.trimmingCharacters(in: .whitespaces) else { return nil }
        guard header.lowercased().hasPrefix("bytes=") else { throw .unsatisfiable }
        let spec = header.dropFirst("bytes=".count)
        guard !spec.contains(",") else { return nil }  // several ranges: the whole file (RFC 9110 lets a server ignore Range)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, size > 0 else { throw .unsatisfiable }
        let digits = { (text: String) in !text.isEmpty && text.count <= 18 && text.allSatisfy(\.isASCII) && text.allSatisfy(\.isNumber) }
        if parts[0].isEmpty {
            guard digits(parts[1]), let suffix = Int64(parts[1]), suffix > 0 else { throw .unsatisfiable }
            return max(0, size - suffix)...(size - 1)
        }
        guard digits(parts[0]), let start = Int64(parts[0]), start < size else { throw .unsatisfiable }
        if parts[1].isEmpty { return start...(size - 1) }
        guard digits(parts[1]), let end = Int64(parts[1]), end >= start else { throw .unsatisfiable }
        return start...min(end, size - 1)
    }

    enum RangeError: Error { case unsatisfiable }

    /// The response for a stored file.
    static func response(
        for file: FileAttachment, location: FileStorage.Location?, request: Request, context: some RequestContext
    ) async throws -> Response {
        let etag = "\"\(file.sha256)\""
        var headers = HTTPFields()
        headers[.eTag] = etag
        headers[.acceptRanges] = "bytes"
        headers[.cacheControl] = "private, no-cache"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        if let match = request.headers[.ifNoneMatch],
            match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag || $0 == "*" })
        {
            return Response(status: .notModified, headers: headers)
        }
        guard let location else { throw CollabError.notFound("File", file.id) }
        headers[.contentType] = file.mimeType
        headers[.contentDisposition] = contentDisposition(file.name)
        // An empty file (a snapshot may restore one) has no byte a range could name: it is served whole.
        guard file.size > 0 else {
            return Response(status: .ok, headers: headers, body: ResponseBody())
        }
        let range: ClosedRange<Int64>?
        do {
            // `If-Range` with another validator asks for the whole file.
            let ifRange = request.headers[.ifRange]
            range = try (ifRange == nil || ifRange == etag) ? Self.range(request.headers[.range], size: file.size) : nil
        } catch {
            headers[.contentRange] = "bytes */\(file.size)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
        let whole = Int64(0)...(file.size - 1)
        let served = range ?? whole
        let body: ResponseBody
        switch location {
        case .buffer(let buffer):
            body = ResponseBody(
                byteBuffer: buffer.getSlice(at: buffer.readerIndex + Int(served.lowerBound), length: Int(served.count)) ?? ByteBuffer())
        case .path(let path):
            // The bytes on disk must be the ones the record describes (a restored snapshot could name a
            // size its file does not have): reading past their end would fail mid-answer.
            let stored = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
            guard stored == file.size else {
                throw CollabError(.internalError, "the stored bytes of file \(file.id) do not match its record (\(file.size) bytes)")
            }
            body = try await FileIO().loadFile(path: path, range: Int(served.lowerBound)...Int(served.upperBound), context: context)
        }
        if let range {
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(file.size)"
            return Response(status: .partialContent, headers: headers, body: body)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// `attachment` with an ASCII fallback name and the exact name in RFC 5987 form.
    static func contentDisposition(_ name: String) -> String {
        let fallback = String(name.unicodeScalars.map { $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 0x20 ? Character($0) : "_" })
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "!#$&+-.^_`|~")
        let encoded = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? fallback
        return "attachment; filename=\"\(fallback)\"; filename*=UTF-8''\(encoded)"
    }
}
