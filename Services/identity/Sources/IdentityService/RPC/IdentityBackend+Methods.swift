import AuditAPI
import AuditTrail
import IdentityAPI
import FoundationEssentials
import ServiceProtocol
import TextCoding

extension IdentityBackend {
    /// Registers every `identity.*` method on `router`. Every method that may change a user
    /// announces it (`UserChanges`) before it answers, also when it fails half way.
    public func register(on router: inout RPCRouter) {
        router.register(Identity.signIn) { (params: ProviderCredential, context) in
            let outcome = try await self.signInFlow.signIn(params, context: context)
            // A sign-in may have followed the provider's email, filled the name or linked by email.
            if outcome.changedExistingUser { await self.userChanges.changed(outcome.result.user.id) }
            return outcome.result
        }
        router.register(Identity.createGuest) { (_: Empty, context) -> User in
            try await self.users.createGuest(context: context)
        }
        router.register(Identity.signInGuest) { (params: LinkParams, context) -> GuestSignInResult in
            try await self.announcing(params.userID) {
                let result = try await self.signInFlow.signIn(params.credential, asGuest: params.userID, context: context)
                if result.outcome == .merge { await self.userChanges.changed(result.user.id) }
                return result
            }
        }
        router.register(Identity.link) { (params: LinkParams, context) in
            try await self.announcing(params.userID) {
                try await self.signInFlow.link(params.credential, to: params.userID, context: context)
            }
        }
        router.register(Identity.unlink) { (params: UnlinkParams, context) -> User in
            try await self.announcing(params.userID) {
                try await self.signInFlow.identities.unlink(params.provider, from: params.userID, context: context)
            }
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
            // At most 256 characters as sent (openapi.yaml's `maxLength`, which counts code
            // points), before the spaces around it are dropped.
            guard (params.query?.unicodeScalars.count ?? 0) <= 256 else { throw IdentityError.badRequest("query is too long") }
            let query = params.query?.trimmingWhitespace()
            guard query.map(StorableText.isStorable) ?? true else {
                throw IdentityError.badRequest("query must not contain NUL characters")
            }
            guard (params.minAgeSeconds ?? 0) >= 0 else { throw IdentityError.badRequest("min_age_seconds must not be negative") }
            let page = try await self.users.list(
                query: query?.isEmpty == false ? query : nil, limit: limit, after: cursor, guest: params.guest,
                minAgeSeconds: params.minAgeSeconds)
            return ListUsersResult(users: page.users, nextCursor: page.next?.text)
        }
        router.register(Identity.setActive) { (params: SetActiveParams, context) -> User in
            guard
                let user = try await self.announcing(
                    params.userID, { try await self.users.setActive(params.userID, params.active, context: context) })
            else { throw IdentityError.userNotFound }
            return user
        }
        router.register(Identity.setAdmin) { (params: SetAdminParams, _) -> User in
            guard let user = try await self.announcing(params.userID, { try await self.users.setAdmin(params.userID, params.admin) })
            else { throw IdentityError.userNotFound }
            return user
        }
        router.register(Identity.appleNotification) { (params: AppleNotificationParams, context) in
            let result = try await self.appleNotifications.receive(params, context: context)
            if result.outcome == .applied, let user = result.userID { await self.userChanges.changed(user) }
            return result
        }
        router.register(Identity.completeAppleNotification) { (params: CompleteAppleNotificationParams, _) -> Empty in
            try await self.appleNotifications.store.complete(params.jti)
            return Empty()
        }
        router.register(Identity.deleteGuest) { (params: DeleteUserParams, context) -> DeleteUserResult in
            let deleted = try await self.announcing(params.userID) {
                try await self.users.delete(params.userID, onlyGuest: true, reason: DeletionReason(params), context: context)
            }
            self.revocationsQueued()
            return DeleteUserResult(deleted: deleted)
        }
        router.register(Identity.deleteUser) { (params: DeleteUserParams, context) -> DeleteUserResult in
            let deleted = try await self.announcing(params.userID) {
                try await self.users.delete(params.userID, reason: DeletionReason(params), context: context)
            }
            self.revocationsQueued()
            return DeleteUserResult(deleted: deleted)
        }
        router.register(Identity.auditList) { (params: AuditListParams, _) -> AuditPage in
            try await self.users.audit.list(params)
        }
        router.register(Identity.eventsRead) { (params: EventsReadParams, _) -> EventsPage in
            try await self.events.read(params)
        }
        router.register(Identity.eventsSessionsRevoked) { (params: SessionsRevokedParams, _) -> Empty in
            guard ["logout", "admin"].contains(params.reason) else { throw IdentityError.badRequest("reason must be logout or admin") }
            try await self.events.append(
                .sessionsRevoked, user: params.userID, data: ["reason": .string(params.reason)], id: params.id)
            return Empty()
        }
        router.register(Identity.auditRecord) { (params: AuditRecordParams, context) -> Empty in
            guard let type = AuditEventType(rawValue: params.type) else { throw IdentityError.badRequest("type is not an audit event type") }
            try await self.users.audit.record(
                AuditEntry(type, userID: params.userID, context: context, details: params.details ?? [:], id: params.id))
            return Empty()
        }
    }

    /// Runs a change of `user`, then announces it, whether the change succeeded or not (a
    /// failure may come after a commit).
    private func announcing<T>(_ user: UUID, _ change: () async throws -> T) async throws -> T {
        do {
            let result = try await change()
            await self.userChanges.changed(user)
            return result
        } catch {
            await self.userChanges.changed(user)
            throw error
        }
    }
}
