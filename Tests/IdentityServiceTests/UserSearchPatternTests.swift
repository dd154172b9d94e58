@testable import IdentityService
import Testing

/// The admin's user search is a LIKE pattern around the query: the query's `%`, `_` and `\`
/// match themselves, an accent after one of them included.
@Suite struct UserSearchPatternTests {
    @Test func wildcardsAndTheEscapeMatchThemselves() {
        #expect(UserStore.escapeLike("50%_off\\") == "50\\%\\_off\\\\")
        #expect(UserStore.escapeLike("a_\u{301}b") == "a\\_\u{301}b")
        #expect(UserStore.escapeLike("plain") == "plain")
    }
}
