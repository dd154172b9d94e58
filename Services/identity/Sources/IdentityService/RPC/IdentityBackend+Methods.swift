import IdentityAPI
import Foundation
import ServiceProtocol

extension IdentityBackend {
    /// Registers every `identity.*` method on `router`.
    public func register(on router: inout RPCRouter) {
        router.register(Identity.signIn) { (params: ProviderCredential, _) in
            try await self.signInFlow.signIn(params)
        }
        router.register(Identity.link) { (params: LinkParams, _) in
            try await self.signInFlow.link(params.credential, to: params.userID)
        }
        router.register(Identity.unlink) { (params: UnlinkParams, _) -> User in
            try await self.signInFlow.identities.unlink(params.provider, from: params.userID)
            self.revocationsQueued()
            guard let user = try await self.users.userWithIdentities(params.userID) else { throw IdentityError.userNotFound }
            return user
        }
        router.register(Identity.getUser) { (params: UserIDParams, _) -> User in
            guard let user = try await self.users.userWithIdentities(params.userID) else { throw IdentityError.userNotFound }
            return user
        }
        router.register(Identity.listUsers) { (params: ListUsersParams, _) -> ListUsersResult in
            let limit = params.limit ?? 50
            guard (1...200).contains(limit) else { throw IdentityError.badRequest("limit must be between 1 and 200") }
            var cursor: UserCursor?
            if let text = params.cursor {
                guard let parsed = UserCursor(text: text) else { throw IdentityError.badRequest("cursor is not valid") }
                cursor = parsed
            }
            let query = params.query?.trimmingCharacters(in: .whitespaces)
            guard (query?.count ?? 0) <= 256 else { throw IdentityError.badRequest("query is too long") }
            guard query.map(StorableText.isStorable) ?? true else {
                throw IdentityError.badRequest("query must not contain NUL characters")
            }
            let page = try await self.users.list(
                query: query?.isEmpty == false ? query : nil, limit: limit, after: cursor)
            return ListUsersResult(users: page.users, nextCursor: page.next?.text)
        }
        router.register(Identity.setActive) { (params: SetActiveParams, _) -> User in
            guard let user = try await self.users.setActive(params.userID, params.active) else {
                throw IdentityError.userNotFound
            }
            return user
        }
        router.register(Identity.setAdmin) { (params: SetAdminParams, _) -> User in
            guard let user = try await self.users.setAdmin(params.userID, params.admin) else { throw IdentityError.userNotFound }
            return user
        }
        router.register(Identity.appleNotification) { (params: AppleNotificationParams, _) in
            try await self.appleNotifications.receive(params)
        }
        router.register(Identity.completeAppleNotification) { (params: CompleteAppleNotificationParams, _) -> Empty in
            try await self.appleNotifications.store.complete(params.jti)
            return Empty()
        }
        router.register(Identity.deleteUser) { (params: UserIDParams, _) -> DeleteUserResult in
            let deleted = try await self.users.delete(params.userID)
            self.revocationsQueued()
            return DeleteUserResult(deleted: deleted)
        }
    }
}
