import AccountAdministration
import ArgumentParser
import Foundation
import IdentityAPI

/// `latchkey users ...`: find users and act on them, as the admin API does.
struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find users and act on them over RPC (needs SERVICE_TOKEN and the backends' endpoints).",
        subcommands: [
            List.self, Show.self, Deactivate.self, Activate.self, RevokeSessions.self, Delete.self, GrantAdmin.self,
            RevokeAdmin.self,
        ])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users, newest first; one line each, or JSON.")

        @OptionGroup var connection: OperatorConnection
        @Option(help: "An email or name fragment, or a user id.") var query: String?
        @Option(help: "Users per page, 1-200.") var limit: Int = 50
        @Option(help: "The next_cursor of the previous page.") var cursor: String?
        @Flag(help: "Print the page as JSON ({\"users\":[...],\"next_cursor\":...}).") var json = false

        func run() async throws {
            try await reportingFailures {
                let page = try await self.connection.withAdministration { accounts in
                    try await accounts.listUsers(ListUsersParams(query: self.query, limit: self.limit, cursor: self.cursor))
                }
                if self.json {
                    try printJSON(page)
                } else {
                    for user in page.users { print(UserLine(user).text) }
                    if let next = page.nextCursor { FileHandle.standardError.write(Data("more: --cursor \(next)\n".utf8)) }
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print one user, with its sign-in methods, as JSON.")
        @OptionGroup var connection: OperatorConnection
        @Argument(help: "The user's id.") var userID: UUID

        func run() async throws {
            try await reportingFailures {
                try printJSON(try await self.connection.withAdministration { try await $0.user(self.userID) })
            }
        }
    }

    struct Deactivate: UserChange {
        static let configuration = CommandConfiguration(
            abstract: "Stop the user signing in and end every session and access token at once.")
        @OptionGroup var connection: OperatorConnection
        @Argument(help: "The user's id.") var userID: UUID

        static func change(_ accounts: AccountAdministration, _ userID: UUID) async throws -> User {
            try await accounts.deactivate(userID)
        }
    }

    struct Activate: UserChange {
        static let configuration = CommandConfiguration(abstract: "Let a deactivated user sign in again.")
        @OptionGroup var connection: OperatorConnection
        @Argument(help: "The user's id.") var userID: UUID

        static func change(_ accounts: AccountAdministration, _ userID: UUID) async throws -> User {
            try await accounts.activate(userID)
        }
    }

    struct RevokeSessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End every session of the user (they sign in again).")
        @OptionGroup var connection: OperatorConnection
        @Argument(help: "The user's id.") var userID: UUID

        func run() async throws {
            try await reportingFailures {
                let result = try await self.connection.withAdministration { try await $0.revokeSessions(self.userID) }
                print("revoked \(result.revokedSessions) sessions of \(self.userID.uuidString.lowercased())")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete the user everywhere: account, sign-in methods, sessions and all content state.",
            discussion: "Cannot be undone. Deleting a user that does not exist succeeds (a retry completes a deletion).")
        @OptionGroup var connection: OperatorConnection
        @Argument(help: "The user's id.") var userID: UUID
        @Flag(help: "Confirm the deletion (required).") var yes = false

        func validate() throws {
            guard self.yes else { throw ValidationError("deleting a user cannot be undone: add --yes") }
        }

        func run() async throws {
            try await reportingFailures {
                try await self.connection.withAdministration { try await $0.delete(self.userID) }
                print("deleted \(self.userID.uuidString.lowercased())")
            }
        }
    }

    struct GrantAdmin: UserChange {
        static let configuration = CommandConfiguration(
            abstract: "Make the user an admin (adm: true in the tokens of sessions opened from now on).")
        @OptionGroup var connection: OperatorConnection
        @Argument(help: "The user's id.") var userID: UUID

        static func change(_ accounts: AccountAdministration, _ userID: UUID) async throws -> User {
            try await accounts.grantAdmin(userID)
        }
    }

    struct RevokeAdmin: UserChange {
        static let configuration = CommandConfiguration(
            abstract: "Take the admin role back and end the user's sessions (their tokens say adm).")
        @OptionGroup var connection: OperatorConnection
        @Argument(help: "The user's id.") var userID: UUID

        static func change(_ accounts: AccountAdministration, _ userID: UUID) async throws -> User {
            try await accounts.revokeAdmin(userID)
        }
    }
}

/// A command that changes one user and prints the user as it is afterwards, on one line.
protocol UserChange: AsyncParsableCommand {
    var connection: OperatorConnection { get }
    var userID: UUID { get }
    static func change(_ accounts: AccountAdministration, _ userID: UUID) async throws -> User
}

extension UserChange {
    func run() async throws {
        try await reportingFailures {
            print(UserLine(try await self.connection.withAdministration { try await Self.change($0, self.userID) }).text)
        }
    }
}

extension UUID: @retroactive ExpressibleByArgument {
    public init?(argument: String) {
        self.init(uuidString: argument)
    }
}
