/// A string enum whose decoding names the values it has when it meets one it does not: a seed's
/// `role: GOD` or a body's misspelt state fails with "'GOD' is not one of ADMIN, SUPERVISOR, …", and the
/// 400 (with the value's path) says what to write instead.
///
/// Adopt it beside `Codable`; the conformance replaces the standard library's raw-value decoding with
/// the same check and a better message. Encoding is unchanged.
public protocol NamedCases: RawRepresentable, CaseIterable, Decodable where RawValue == String {}

extension NamedCases {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Self(rawValue: text) else {
            let known = Self.allCases.map(\.rawValue)
            let shown = known.count <= 40 ? known.joined(separator: ", ") : known.prefix(40).joined(separator: ", ") + ", …"
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text.prefix(100))' is not one of \(shown)")
        }
        self = value
    }
}
