import ServiceProtocol

extension TokenPair {
    /// The JSON the RPC encoder writes for the pair (members in declaration order, ids in upper
    /// case; none of its strings holds a `/`, which the encoder would escape), written by hand:
    /// `tokens` answers every sign-in and refresh with it and seals the same bytes as a
    /// rotation's successor.
    public var json: RawJSON {
        var json = RawJSON(capacity: 768)
        json.append(#"{"access_token":"#)
        json.append(string: self.accessToken)
        json.append(#","token_type":"#)
        json.append(string: self.tokenType)
        json.append(#","expires_in":"#)
        json.append(integer: Int64(self.expiresIn))
        json.append(#","expires_at":"#)
        json.append(string: self.expiresAt)
        json.append(#","refresh_token":"#)
        json.append(string: self.refreshToken)
        json.append(#","refresh_expires_at":"#)
        json.append(string: self.refreshExpiresAt)
        json.append(#","session_id":"#)
        json.append(uppercaseUUID: self.sessionID)
        json.append(#","user_id":"#)
        json.append(uppercaseUUID: self.userID)
        json.append(#","is_admin":"#)
        json.append(bool: self.isAdmin)
        json.append("}")
        return json
    }
}
