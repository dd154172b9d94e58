#ifndef CLIBSSL_SHIM_H
#define CLIBSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

// OpenSSL spells these as macros, which Swift cannot call.

/// Sends the host name in the handshake (SNI).
static inline int latchkey_ssl_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// Makes SSL_read return after a record that carries no application data (a TLS 1.3 session
/// ticket, say) instead of reading on, so a caller polling the socket never blocks in it.
static inline void latchkey_ssl_ctx_clear_auto_retry(SSL_CTX *ctx) {
    SSL_CTX_clear_mode(ctx, SSL_MODE_AUTO_RETRY);
}

/// At least TLS 1.2.
static inline int latchkey_ssl_ctx_require_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}
#endif
