#ifndef CLIBCRYPTO_SHIM_H
#define CLIBCRYPTO_SHIM_H
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#endif
