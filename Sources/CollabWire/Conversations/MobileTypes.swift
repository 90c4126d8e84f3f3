/// What a mobile client says about the device it runs on (the vendor's `DeviceInfo` where it fits).
public struct DeviceInfo: Sendable, Codable, Equatable {
    /// `iOS`, `Android`, or another platform name.
    public var os: String
    public var osVersion: String?
    /// The app's bundle or package id.
    public var appId: String?
    public var appVersion: String?
    public var sdkVersion: String?
    public var model: String?

    public init(
        os: String, osVersion: String? = nil, appId: String? = nil, appVersion: String? = nil, sdkVersion: String? = nil, model: String? = nil
    ) {
        self.os = os
        self.osVersion = osVersion
        self.appId = appId
        self.appVersion = appVersion
        self.sdkVersion = sdkVersion
        self.model = model
    }
}

/// `POST /mobile/v1/clients`: starts a visitor client, like the SDK's `start`.
public struct ClientStartRequest: Codable, Sendable {
    /// The API key; may also come as the `x-unblu-apikey` header.
    public var apiKey: String?
    /// An access token (JWT) identifying the visitor; absent for an anonymous visitor.
    public var accessToken: String?
    /// The app's stable device id: an anonymous visitor is the same person on every start.
    public var deviceId: String
    public var device: Device
    /// A named area id or site id.
    public var namedArea: String?
    /// An anonymous device's secret, as its first start returned it; required on every later start
    /// with the same `deviceId` (absent on the very first start).
    public var deviceSecret: String?

    /// The device, as the server keeps it.
    public typealias Device = DeviceInfo

    public init(
        apiKey: String? = nil, accessToken: String? = nil, deviceId: String, device: Device, namedArea: String? = nil, deviceSecret: String? = nil
    ) {
        self.apiKey = apiKey
        self.accessToken = accessToken
        self.deviceId = deviceId
        self.device = device
        self.namedArea = namedArea
        self.deviceSecret = deviceSecret
    }
}

/// The answer to a client start.
public struct ClientStartResponse: Codable, Sendable {
    /// The client's bearer token for every further call and the event WebSocket.
    public var token: String
    public var clientId: String
    public var accountId: String
    public var person: PersonView
    public var namedAreaId: String?
    /// The effective configuration for this client (account → area → API key).
    public var configuration: [String: String]
    public var serverTime: Int64
    /// Issued on an anonymous device's first start, only then: keep it (the SDK's preferences storage)
    /// and send it as `deviceSecret` on every later start.
    public var deviceSecret: String?
    public init(
        token: String, clientId: String, accountId: String, person: PersonView, namedAreaId: String?, configuration: [String: String],
        serverTime: Int64, deviceSecret: String? = nil
    ) {
        self.deviceSecret = deviceSecret
        self.token = token
        self.clientId = clientId
        self.accountId = accountId
        self.person = person
        self.namedAreaId = namedAreaId
        self.configuration = configuration
        self.serverTime = serverTime
    }
}

/// `PUT /mobile/v1/clients/current/app-state`.
public struct AppStateRequest: Codable, Sendable {
    /// `BACKGROUND`, `FOREGROUND_UI_CLOSED` or `FOREGROUND_UI_OPEN`.
    public var appState: String
    public init(appState: String) { self.appState = appState }
}

/// `PUT /mobile/v1/clients/current/named-area`.
public struct NamedAreaRequest: Codable, Sendable {
    /// A named area id or site id; absent clears it.
    public var namedArea: String?
    public init(namedArea: String?) { self.namedArea = namedArea }
}

/// A client as the mobile API reports it.
public struct ClientView: Codable, Sendable, Equatable {
    public var clientId: String
    public var personId: String
    public var deviceId: String
    public var namedAreaId: String?
    public var appState: String
    public var openConversationId: String?
    public init(clientId: String, personId: String, deviceId: String, namedAreaId: String?, appState: String, openConversationId: String?) {
        self.clientId = clientId
        self.personId = personId
        self.deviceId = deviceId
        self.namedAreaId = namedAreaId
        self.appState = appState
        self.openConversationId = openConversationId
    }
}

/// `POST /mobile/v1/conversations`: a visitor starts a conversation.
public struct StartConversationRequest: Codable, Sendable {
    public var topic: String?
    /// The vendor's `EInitialEngagementType`; `CHAT_REQUEST` when absent.
    public var engagementType: String?
    /// A named area id or site id; the client's named area when absent; the account queue when neither.
    public var namedArea: String?
    public init(topic: String? = nil, engagementType: String? = nil, namedArea: String? = nil) {
        self.topic = topic
        self.engagementType = engagementType
        self.namedArea = namedArea
    }
}

/// Agent availability for a visitor.
public struct AvailabilityView: Codable, Sendable, Equatable {
    /// `AVAILABLE` when an agent is online, else `UNAVAILABLE`.
    public var state: String
    public var onlineAgents: Int
    public init(state: String, onlineAgents: Int) {
        self.state = state
        self.onlineAgents = onlineAgents
    }
}

/// `POST /agent/v1/login`.
public struct AgentLoginRequest: Codable, Sendable {
    public var username: String
    public var password: String
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}

/// The answer to an agent login.
public struct AgentLoginResponse: Codable, Sendable {
    /// Bearer token for the agent API and its event WebSocket.
    public var token: String
    public var person: PersonView
    public var accountId: String
    public var expiresAt: Int64
    /// The language the agent chose (the Web API's `authenticator/setDefaultLocale`), if any.
    public var locale: String?
    public init(token: String, person: PersonView, accountId: String, expiresAt: Int64, locale: String? = nil) {
        self.token = token
        self.person = person
        self.accountId = accountId
        self.expiresAt = expiresAt
        self.locale = locale
    }
}

/// `PUT /agent/v1/presence`.
public struct PresenceRequest: Codable, Sendable {
    /// `ONLINE`, `AWAY` or `OFFLINE`.
    public var presence: String
    public init(presence: String) { self.presence = presence }
}

/// An agent's queue.
public struct QueueView: Codable, Sendable {
    public struct Entry: Codable, Sendable, Equatable {
        public var position: Int
        public var conversation: ConversationView
        public init(position: Int, conversation: ConversationView) {
            self.position = position
            self.conversation = conversation
        }
    }

    public var entries: [Entry]
    /// Pass as `cursor` to read the next page; absent on the last page.
    public var nextCursor: String?
    public init(entries: [Entry], nextCursor: String? = nil) {
        self.entries = entries
        self.nextCursor = nextCursor
    }
}

/// A list of conversations.
public struct ConversationList: Codable, Sendable {
    public var conversations: [ConversationView]
    /// Whether more follow the page: ask again with `before` set to the last conversation's id.
    public var hasMore: Bool
    public init(conversations: [ConversationView], hasMore: Bool = false) {
        self.conversations = conversations
        self.hasMore = hasMore
    }

    /// The page's longest allowed `limit`, and its default.
    public static let maximumLimit = 1_000
}

/// `POST /agent/v1/clients`: starts an agent's app, like the SDK's agent client `start`: the API key,
/// and an access token whose subject is the agent's username — or the account's token cookie, or the
/// agent's username and password (the vendor's login).
public struct AgentClientStartRequest: Codable, Sendable {
    /// The API key; may also come as the `x-unblu-apikey` header.
    public var apiKey: String?
    /// An access token (JWT) naming the agent by username (`preferred_username`, else `sub`).
    public var accessToken: String?
    /// The agent's username, with ``password``, when no access token is given.
    public var username: String?
    public var password: String?
    /// The app's stable device id.
    public var deviceId: String
    public var device: ClientStartRequest.Device
    /// A named area id or site id: the inbound requests the app is told of are this area's (and its
    /// configuration applies).
    public var namedArea: String?

    public init(
        apiKey: String? = nil, accessToken: String? = nil, username: String? = nil, password: String? = nil, deviceId: String,
        device: ClientStartRequest.Device, namedArea: String? = nil
    ) {
        self.apiKey = apiKey
        self.accessToken = accessToken
        self.username = username
        self.password = password
        self.deviceId = deviceId
        self.device = device
        self.namedArea = namedArea
    }
}
