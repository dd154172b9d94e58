import Testing

@testable import Gateway

@Suite("JSON media types")
struct JSONMediaTypeTests {
    @Test func jsonAndPlusJSONTypesWithAnyParametersAreJSON() {
        for accepted in [
            "application/json", "Application/JSON", "application/json; charset=utf-8", " application/json ;charset=UTF-8",
            "application/merge-patch+json", "application/vnd.api+json; ext=bulk", "\tapplication/json\t", "APPLICATION/VND.X+JSON",
        ] {
            #expect(JSONMediaType.matches(accepted), "\(accepted)")
        }
        for refused in [nil, "", "text/plain", "json", "application/jsonx", "application/x-www-form-urlencoded", "/json", "application/+json", "text/json+xml",
            "application/json\u{A0}", "application/js on", "application json", "application/jsoN+", "+json/x",
        ] {
            #expect(!JSONMediaType.matches(refused), "\(refused ?? "nil")")
        }
    }
}
