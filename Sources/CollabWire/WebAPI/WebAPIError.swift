/// The Web API's `Error` body.
public struct WebAPIError: WebAPIObject, Equatable, Error {
    public static let typeName = "Error"
    public var type: String?
    public var statusCode: Int?
    public var statusDescription: String?
    public var errorMessage: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", statusCode, statusDescription, errorMessage
    }

    public init(statusCode: Int, statusDescription: String, errorMessage: String) {
        self.type = Self.typeName
        self.statusCode = statusCode
        self.statusDescription = statusDescription
        self.errorMessage = errorMessage
    }
}
