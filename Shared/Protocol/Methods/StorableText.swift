/// Text a service may store. Postgres `text` cannot hold NUL (U+0000), so a string with one is
/// the caller's mistake (`bad_request`), never a failed statement. Swift strings are valid
/// Unicode already: invalid UTF-8 is refused where bytes become strings.
public enum StorableText {
    public static func isStorable(_ text: String) -> Bool {
        !text.utf8.contains(0)
    }
}
