import CLibSSL

/// The TLS settings of `rediss://` connections: one OpenSSL client context (the authorities
/// trusted for the server's certificate, and a client certificate when the server asks for
/// one) shared by every connection of a client. Immutable once made, hence `Sendable`.
public final class RedisTLSContext: @unchecked Sendable {
    let context: OpaquePointer

    /// Trusts the certificates in `caFile` (PEM), or the system's authorities when nil, and
    /// presents `certificateFile`/`keyFile` (PEM) when both are given. A file that cannot be
    /// read or a key that does not match throws `.connectionFailed` saying which.
    public init(caFile: String?, certificateFile: String? = nil, keyFile: String? = nil) throws(RedisError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw .connectionFailed("cannot create a TLS context: \(Self.lastError())")
        }
        self.context = context
        guard latchkey_ssl_ctx_require_tls12(context) == 1 else {
            throw .connectionFailed("cannot require TLS 1.2: \(Self.lastError())")
        }
        if let caFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                throw .connectionFailed("cannot read the Redis CA file \(caFile): \(Self.lastError())")
            }
        } else if SSL_CTX_set_default_verify_paths(context) != 1 {
            throw .connectionFailed("cannot load the system's certificate authorities: \(Self.lastError())")
        }
        switch (certificateFile, keyFile) {
        case (let certificate?, let key?):
            guard SSL_CTX_use_certificate_chain_file(context, certificate) == 1 else {
                throw .connectionFailed("cannot read the Redis client certificate \(certificate): \(Self.lastError())")
            }
            guard SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1, SSL_CTX_check_private_key(context) == 1 else {
                throw .connectionFailed("cannot use the Redis client key \(key): \(Self.lastError())")
            }
        case (nil, nil):
            break
        default:
            throw .connectionFailed("a Redis client certificate needs both its certificate and its key file")
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        latchkey_ssl_ctx_clear_auto_retry(context)
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// OpenSSL's description of the oldest queued error (and clears the queue); never holds
    /// key material.
    static func lastError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "unknown TLS error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
