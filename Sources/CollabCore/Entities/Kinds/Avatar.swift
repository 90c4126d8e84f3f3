/// An avatar image (`Avatar`), read by id; persons and users name theirs. The mock stores what it is
/// given (a data URL of at most 16 KiB) and does not crop or rotate.
public struct Avatar: DeclaredEntity {
    public var id: String, accountId: String, creationTimestamp: Int64, modificationTimestamp: Int64?, version: Int64?
    public var imageZoomFactor: Double?
    public var imageXPositionRatio: Double?
    public var imageYPositionRatio: Double?
    public var imageRotationAngle: Int?
    public var imageData: String?

    public static let declaration = EntityDeclaration<Avatar>(
        typeName: "Avatar", path: "avatars", idParameter: "avatarId", seedKey: "avatars",
        operations: EntityOperations(read: .registeredUser),
        fields: [.creationTimestamp],
        versioned: false,
        rules: EntityRules(validate: { avatar, _, _ throws(CollabError) in
            guard avatar.imageData?.hasPrefix("data:") ?? true else { throw .badRequest("imageData must be a data: URL") }
        })
    )
}
