import Testing

@testable import CollabServer

@Suite("Range headers of file downloads")
struct FileRangeTests {
    @Test("single ranges, suffixes and open ends; several ranges mean the whole file; the rest is unsatisfiable")
    func ranges() throws {
        #expect(try FileDownload.range(nil, size: 100) == nil)
        #expect(try FileDownload.range("bytes=0-9", size: 100) == 0...9)
        #expect(try FileDownload.range("bytes=90-", size: 100) == 90...99)
        #expect(try FileDownload.range("bytes=-10", size: 100) == 90...99)
        #expect(try FileDownload.range("bytes=-1000", size: 100) == 0...99)
        #expect(try FileDownload.range("bytes=50-5000", size: 100) == 50...99)
        #expect(try FileDownload.range("BYTES=1-2", size: 100) == 1...2)
        #expect(try FileDownload.range("bytes=0-1, 4-5", size: 100) == nil)
        for bad in ["bytes=100-", "bytes=5-4", "bytes=-0", "bytes=x-1", "bytes=1-y", "items=0-1", "bytes=", "bytes=-", "bytes=+1-2",
                    "bytes=99999999999999999999-"] {
            #expect(throws: FileDownload.RangeError.self, "\(bad)") { try FileDownload.range(bad, size: 100) }
        }
        #expect(throws: FileDownload.RangeError.self) { try FileDownload.range("bytes=0-0", size: 0) }
    }

    @Test("Content-Disposition keeps the exact name in RFC 5987 form with an ASCII fallback")
    func disposition() {
        #expect(FileDownload.contentDisposition("a b.png") == "attachment; filename=\"a b.png\"; filename*=UTF-8''a%20b.png")
        #expect(FileDownload.contentDisposition("März\".pdf") == "attachment; filename=\"M_rz_.pdf\"; filename*=UTF-8''M%C3%A4rz%22.pdf")
    }
}
