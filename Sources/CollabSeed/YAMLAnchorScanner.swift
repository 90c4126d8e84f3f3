/// Finds YAML anchors (`&name`) and aliases (`*name`) before the YAML parser sees the text.
///
/// Seeds refuse both: an alias repeats a node without repeating its text, so a few hundred bytes of
/// nested aliases (a "billion laughs" document) expand to billions of nodes, and Yams expands them
/// while composing (it hashes mapping keys) and decoding. The check has to come first, on the text.
///
/// The scan is lexical and errs on the side of refusing: it follows where a YAML node can start (line
/// start, after `- `, `? `, `: `, a `:` right after a quoted key or flow collection, flow indicators and
/// tags), skips comments, single-line quoted scalars
/// and block scalars (`|`, `>`), and reports `&` or `*` at any such place. A plain scalar that merely
/// contains ` *` after a `,` or at the start of a continuation line may be refused too; quoting it helps.
enum YAMLAnchorScanner {
    /// Where the first anchor or alias is: its line and column (1-based), or `nil` when there is none.
    static func firstAnchorOrAlias(in text: String) -> (line: Int, column: Int)? {
        var blockScalarParentIndent: Int?
        var lineNumber = 0
        for bytes in lines(of: Array(text.utf8)) {
            lineNumber += 1
            let indent = bytes.prefix { $0 == UInt8(ascii: " ") }.count
            let blank = bytes.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
            if let parent = blockScalarParentIndent {
                if blank || indent > parent { continue }
                blockScalarParentIndent = nil
            }
            if let column = scan(bytes, indent: indent, blockScalar: &blockScalarParentIndent) {
                return (lineNumber, column)
            }
        }
        return nil
    }

    /// The text's lines as the YAML parser breaks them: at `\n`, `\r\n` and a lone `\r`, and at the
    /// Unicode breaks NEL, LS and PS (libyaml counts them too). Splitting at `\n` alone would let an
    /// anchor after a lone `\r` start a node the scan thinks is in the middle of a line.
    static func lines(of bytes: [UInt8]) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            let width: Int
            switch bytes[index] {
            case UInt8(ascii: "\n"): width = 1
            case UInt8(ascii: "\r"): width = index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "\n") ? 2 : 1
            case 0xC2 where index + 1 < bytes.count && bytes[index + 1] == 0x85: width = 2  // NEL
            case 0xE2 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                width = 3  // LS, PS
            default:
                index += 1
                continue
            }
            lines.append(Array(bytes[start..<index]))
            index += width
            start = index
        }
        lines.append(Array(bytes[start...]))
        return lines
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }

    /// Scans one line; returns the 1-based column of an anchor or alias.
    private static func scan(_ bytes: [UInt8], indent: Int, blockScalar: inout Int?) -> Int? {
        var index = 0
        var nodeStart = true
        var previousSpace = true
        func followedBySpace(_ at: Int) -> Bool { at + 1 >= bytes.count || isSpace(bytes[at + 1]) }
        // Document markers are followed by a node on the same line.
        if bytes.starts(with: Array("---".utf8)) || bytes.starts(with: Array("...".utf8)), bytes.count == 3 || isSpace(bytes[3]) {
            index = 3
        }
        while index < bytes.count {
            let byte = bytes[index]
            if isSpace(byte) {
                previousSpace = true
                index += 1
                continue
            }
            defer { previousSpace = false }
            if byte == UInt8(ascii: "#"), previousSpace { return nil }
            if nodeStart {
                let indicator = byte == UInt8(ascii: "-") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: ":")
                if indicator, followedBySpace(index) {
                    index += 1
                    continue
                }
                switch byte {
                case UInt8(ascii: "&"), UInt8(ascii: "*"):
                    return index + 1
                case UInt8(ascii: "!"):
                    // A tag: the node's content (maybe an anchor) follows.
                    while index < bytes.count, !isSpace(bytes[index]) { index += 1 }
                    continue
                case UInt8(ascii: "|"), UInt8(ascii: ">"):
                    blockScalar = indent
                    return nil
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    if let end = closingQuote(bytes, from: index) {
                        index = end + 1
                        nodeStart = false
                        continue
                    }
                    // Unterminated on this line: read on as plain text (refusing more rather than less).
                    nodeStart = false
                case UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: ","):
                    index += 1
                    continue
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    nodeStart = false
                default:
                    nodeStart = false
                }
                index += 1
                continue
            }
            switch byte {
            case UInt8(ascii: ":") where followedBySpace(index) || (index > 0 && adjacentValueIndicator(after: bytes[index - 1])):
                nodeStart = true
            case UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: ","):
                nodeStart = true
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// Whether a `:` right after `byte` starts a value even without a space: YAML allows that after a
    /// JSON-like key (a quoted scalar or a flow collection), e.g. `{"key":&anchor value}`.
    private static func adjacentValueIndicator(after byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}")
    }

    /// The index of the quote closing the quoted scalar opened at `start`, on the same line.
    private static func closingQuote(_ bytes: [UInt8], from start: Int) -> Int? {
        let quote = bytes[start]
        var index = start + 1
        while index < bytes.count {
            let byte = bytes[index]
            if quote == UInt8(ascii: "\""), byte == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if byte == quote {
                // '' inside single quotes is an escaped quote.
                if quote == UInt8(ascii: "'"), index + 1 < bytes.count, bytes[index + 1] == quote {
                    index += 2
                    continue
                }
                return index
            }
            index += 1
        }
        return nil
    }
}
