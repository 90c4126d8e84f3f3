import Testing

@testable import CollabCore

@Suite("File sniffing and restrictions")
struct FileRestrictionsTests {
    @Test("the first bytes name the type, whatever the name says")
    func sniffing() {
        let cases: [([UInt8], String)] = [
            ([0xFF, 0xD8, 0xFF, 0xE0], "image/jpeg"),
            ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0], "image/png"),
            (Array("GIF89a..".utf8), "image/gif"),
            (Array("%PDF-1.7".utf8), "application/pdf"),
            ([0x7F, 0x45, 0x4C, 0x46, 2, 1], "application/x-executable"),
            (Array("MZ\u{90}\u{0}".utf8), "application/x-msdownload"),
            ([0xCF, 0xFA, 0xED, 0xFE, 7, 0], "application/x-mach-binary"),
            (Array("#!/bin/sh\necho".utf8), "text/x-shellscript"),
            (Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8), "image/webp"),
            ([0, 0, 0, 0x18] + Array("ftypheic".utf8), "image/heic"),
            ([0, 0, 0, 0x18] + Array("ftypisom".utf8), "video/mp4"),
            ([0x50, 0x4B, 0x03, 0x04], "application/zip"),
            (Array("plain words, ünïcode too".utf8), "text/plain"),
            ([0, 1, 2, 3, 0xFE], "application/octet-stream"),
        ]
        for (bytes, type) in cases {
            #expect(ContentSniffer.sniff(bytes) == type, "\(bytes.prefix(8))")
        }
        // A multi-byte character cut at the end of the head is still text.
        let text = Array(String(repeating: "é", count: 300).utf8)
        #expect(ContentSniffer.sniff(text.prefix(511)) == "text/plain")
    }

    @Test("plain text keeps a more precise textual type the client declared, nothing else does")
    func effectiveType() {
        #expect(ContentSniffer.effectiveType(sniffed: "text/plain", declared: "text/csv; charset=utf-8") == "text/csv")
        #expect(ContentSniffer.effectiveType(sniffed: "text/plain", declared: "application/json") == "application/json")
        let long = "text/" + String(repeating: "x", count: 80_000)
        #expect(ContentSniffer.effectiveType(sniffed: "text/plain", declared: long) == "text/plain", "a declared type is bounded")
        #expect(ContentSniffer.effectiveType(sniffed: "text/plain", declared: "image/png") == "text/plain")
        #expect(ContentSniffer.effectiveType(sniffed: "text/plain", declared: "text/x-shellscript") == "text/plain")
        #expect(ContentSniffer.effectiveType(sniffed: "application/x-executable", declared: "image/png") == "application/x-executable")
    }

    @Test("restrictions resolve along the cascade, the most specific scope winning; the server maximum caps the configured one")
    func cascade() throws {
        let cascade = ConfigurationCascade(
            global: [FileRestrictions.maxFileSizeKey: "999999999"],
            account: [FileRestrictions.allowedMimeTypesKey: "image/*", FileRestrictions.maxFileSizeKey: "5000"],
            area: [FileRestrictions.allowedMimeTypesKey: "image/*, application/pdf"],
            apiKey: [FileRestrictions.blockedExtensionsKey: "gif"]
        )
        let restrictions = FileRestrictions(cascade: cascade, serverMaxFileSize: 4000)
        #expect(restrictions.maxFileSize == 4000)
        #expect(restrictions.allowedMimeTypes == ["image/*", "application/pdf"])
        #expect(restrictions.blockedExtensions == ["gif"], "a set list replaces the default one")
        #expect(throws: FileRefusal.self) { try restrictions.checkName("a.gif") }
        try restrictions.checkName("a.exe")  // the API key's list replaced the defaults
        try restrictions.checkContent(name: "doc.pdf", type: "application/pdf")
        #expect(throws: FileRefusal(.typeNotAllowed, "files of type text/plain are not allowed; allowed: image/*, application/pdf")) {
            try restrictions.checkContent(name: "notes", type: "text/plain")
        }
        #expect(throws: FileRefusal.self) { try restrictions.checkSize(4001) }
        let roomy = FileRestrictions(cascade: ConfigurationCascade(global: [:]), serverMaxFileSize: 10)
        #expect(roomy.maxFileSize == 10)
        #expect(roomy.interceptorTimeoutMillis == 30_000)
        #expect(throws: FileRefusal.self) { try roomy.checkName("setup.EXE") }
        #expect(throws: FileRefusal.self) { try roomy.checkContent(name: "run", type: "application/x-executable") }
    }

    @Test("a known extension must agree with the content")
    func mismatch() throws {
        let open = FileRestrictions(cascade: ConfigurationCascade(global: [FileRestrictions.blockedMimeTypesKey: ""]), serverMaxFileSize: 100)
        #expect(throws: FileRefusal.self) { try open.checkContent(name: "cat.jpg", type: "application/x-executable") }
        #expect(throws: FileRefusal.self) { try open.checkContent(name: "cat.png", type: "image/jpeg") }
        #expect(throws: FileRefusal.self) { try open.checkContent(name: "notes.txt", type: "application/x-executable") }
        try open.checkContent(name: "data.csv", type: "text/csv")
        try open.checkContent(name: "photo.JPEG", type: "image/jpeg")
        try open.checkContent(name: "blob.bin", type: "application/octet-stream")
        try open.checkContent(name: "tool", type: "application/x-executable")  // nothing blocked in this cascade
    }

    @Test("file names: one name, bounded, no separators or control characters")
    func names() throws {
        #expect(try FileAttachment.checkName("Rechnung März.pdf") == "Rechnung März.pdf")
        for bad in [nil, "", ".", "..", "a/b", "a\\b", "a\u{0}b", "a\nb", "a\u{7F}", String(repeating: "x", count: 256)] {
            #expect(throws: CollabError.self, "\(String(describing: bad))") { try FileAttachment.checkName(bad) }
        }
        #expect(FileAttachment.fileExtension(of: ".bashrc") == nil)
        #expect(FileAttachment.fileExtension(of: "a.tar.GZ") == "gz")
        #expect(FileAttachment.fileExtension(of: "noext.") == nil)
    }

    @Test("Windows drops trailing dots and spaces from a name: the extension is read as it will be saved, in any case (issue 25, item 12)")
    func trailingDotsAndSpaces() throws {
        for name in ["run.bat.", "run.bat ", "run.bat  ..", "RUN.BAT", "run.Bat. . .", "run.bat\u{20}.\u{20}"] {
            #expect(FileAttachment.fileExtension(of: name) == "bat", "\(name)")
            #expect(throws: FileRefusal.self, "\(name)") {
                try FileRestrictions(cascade: ConfigurationCascade(global: [:]), serverMaxFileSize: 10).checkName(name)
            }
        }
        let pictures = FileRestrictions(cascade: ConfigurationCascade(global: [FileRestrictions.allowedExtensionsKey: "png"]), serverMaxFileSize: 10)
        try pictures.checkName("cat.png. ")
        #expect(throws: FileRefusal.self) { try pictures.checkName("cat.png.exe.") }
        #expect(throws: FileRefusal.self) { try pictures.checkContent(name: "cat.png .", type: "image/jpeg") }
        #expect(FileAttachment.fileExtension(of: "notes. .") == nil)
        for bad in [" ", ". .", "...", " .. "] {
            #expect(throws: CollabError.self, "\(bad)") { try FileAttachment.checkName(bad) }
        }
    }
}
