import FoundationEssentials
import TextCoding

extension AccessTokenClaims {
    /// The payload JSON JWTKit's encoder (`JSONEncoder.defaultForJWT`) writes for these
    /// claims, byte for byte, written by hand: every sign-in and refresh signs one, and the
    /// encoder's containers cost more than the rest of the payload's work. Members in
    /// declaration order, `/` escaped as Foundation escapes it, a single audience as a string,
    /// times as whole seconds, absent optionals left out. Nil when a time is not a whole number
    /// of seconds (tokens signs whole seconds; the encoder writes any other time).
    public var payloadJSON: [UInt8]? {
        guard let issuedAt = Self.wholeSeconds(self.iat.value), let expiresAt = Self.wholeSeconds(self.exp.value) else {
            return nil
        }
        var json: [UInt8] = []
        json.reserveCapacity(384)
        json.write(#"{"iss":"#)
        JSONString.write(self.iss.value, escapingSlashes: true, to: &json)
        json.write(#","aud":"#)
        if self.aud.value.count == 1 {
            JSONString.write(self.aud.value[0], escapingSlashes: true, to: &json)
        } else {
            json.write("[")
            for (index, audience) in self.aud.value.enumerated() {
                if index > 0 { json.write(",") }
                JSONString.write(audience, escapingSlashes: true, to: &json)
            }
            json.write("]")
        }
        json.write(#","sub":"#)
        JSONString.write(self.sub.value, escapingSlashes: true, to: &json)
        json.write(#","sid":"#)
        JSONString.write(self.sid, escapingSlashes: true, to: &json)
        json.write(#","iat":"#)
        json.append(contentsOf: String(issuedAt).utf8)
        json.write(#","exp":"#)
        json.append(contentsOf: String(expiresAt).utf8)
        json.write(#","jti":"#)
        JSONString.write(self.jti.value, escapingSlashes: true, to: &json)
        if let admin = self.adm {
            json.write(admin ? #","adm":true"# : #","adm":false"#)
        }
        if let milliseconds = self.iat_ms {
            json.write(#","iat_ms":"#)
            json.append(contentsOf: String(milliseconds).utf8)
        }
        if let confirmation = self.cnf {
            json.write(#","cnf":{"jkt":"#)
            JSONString.write(confirmation.jkt, escapingSlashes: true, to: &json)
            json.write("}")
        }
        json.write("}")
        return json
    }

    /// `date` in whole seconds since 1970, when it is one (and fits what the encoder writes
    /// without an exponent).
    private static func wholeSeconds(_ date: Date) -> Int64? {
        let seconds = date.timeIntervalSince1970
        guard seconds.rounded(.towardZero) == seconds, abs(seconds) < 1e15 else { return nil }
        return Int64(seconds)
    }
}
