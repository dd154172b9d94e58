#ifndef CLATCHKEY_OPENSSL_SHIM_H
#define CLATCHKEY_OPENSSL_SHIM_H
// The P-256 key of a session bound to the device (DPoP) where there is no CryptoKit (Linux):
// OpenSSL's libcrypto, through these few functions, each returning 1 on success.
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/x509.h>

/// A new P-256 key, or NULL.
static inline EVP_PKEY *latchkey_p256_generate(void) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, NULL);
    if (context == NULL) return NULL;
    if (EVP_PKEY_keygen_init(context) != 1 || EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, NID_X9_62_prime256v1) != 1
        || EVP_PKEY_keygen(context, &key) != 1) {
        key = NULL;
    }
    EVP_PKEY_CTX_free(context);
    return key;
}

/// The key as PKCS#8 DER in `out` (at most `capacity` bytes); its length in `*length`.
static inline int latchkey_p256_export(EVP_PKEY *key, unsigned char *out, int capacity, int *length) {
    PKCS8_PRIV_KEY_INFO *info = EVP_PKEY2PKCS8(key);
    if (info == NULL) return 0;
    int size = i2d_PKCS8_PRIV_KEY_INFO(info, NULL);
    int ok = 0;
    if (size > 0 && size <= capacity) {
        unsigned char *cursor = out;
        ok = i2d_PKCS8_PRIV_KEY_INFO(info, &cursor) == size;
        *length = size;
    }
    PKCS8_PRIV_KEY_INFO_free(info);
    return ok;
}

/// The P-256 key of PKCS#8 DER, or NULL (also for a key of another curve or type).
static inline EVP_PKEY *latchkey_p256_import(const unsigned char *der, long length) {
    const unsigned char *cursor = der;
    PKCS8_PRIV_KEY_INFO *info = d2i_PKCS8_PRIV_KEY_INFO(NULL, &cursor, length);
    if (info == NULL) return NULL;
    EVP_PKEY *key = EVP_PKCS82PKEY(info);
    PKCS8_PRIV_KEY_INFO_free(info);
    char curve[64];
    size_t curveLength = 0;
    if (key == NULL || EVP_PKEY_get_base_id(key) != EVP_PKEY_EC
        || EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, curve, sizeof(curve), &curveLength) != 1
        || OBJ_sn2nid(curve) != NID_X9_62_prime256v1) {
        EVP_PKEY_free(key);
        return NULL;
    }
    return key;
}

/// The public key's coordinates, x then y, 32 bytes each, in `out` (64 bytes).
static inline int latchkey_p256_public(EVP_PKEY *key, unsigned char *out) {
    BIGNUM *x = NULL, *y = NULL;
    int ok = EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_PUB_X, &x) == 1 && EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_PUB_Y, &y) == 1
        && BN_bn2binpad(x, out, 32) == 32 && BN_bn2binpad(y, out + 32, 32) == 32;
    BN_free(x);
    BN_free(y);
    return ok;
}

/// The ES256 signature (SHA-256, then ECDSA) of `data`, as JOSE writes it: r then s, 32 bytes
/// each, in `out` (64 bytes).
static inline int latchkey_p256_sign(EVP_PKEY *key, const unsigned char *data, size_t length, unsigned char *out) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context == NULL) return 0;
    unsigned char der[80];
    size_t derLength = sizeof(der);
    int ok = EVP_DigestSignInit(context, NULL, EVP_sha256(), NULL, key) == 1
        && EVP_DigestSign(context, der, &derLength, data, length) == 1;
    EVP_MD_CTX_free(context);
    if (!ok) return 0;
    const unsigned char *cursor = der;
    ECDSA_SIG *signature = d2i_ECDSA_SIG(NULL, &cursor, (long)derLength);
    if (signature == NULL) return 0;
    const BIGNUM *r = NULL, *s = NULL;
    ECDSA_SIG_get0(signature, &r, &s);
    ok = BN_bn2binpad(r, out, 32) == 32 && BN_bn2binpad(s, out + 32, 32) == 32;
    ECDSA_SIG_free(signature);
    return ok;
}
#endif
