# shellcheck shell=bash
# The services' libpq for release builds: PostgreSQL's client library built from Debian's source
# package without GSSAPI and LDAP, as one static archive, linked into latchkey-services.
#
# Debian's libpq5 is built with both, so every process that loads it also loads about twenty
# libraries it never calls here (gnutls, krb5, p11-kit, nettle, gmp, sasl2, ldap, ...): about
# 5 MiB of the four services' memory (docs/benchmarks.md, History: "libpq without GSSAPI and LDAP").
# The cost: Kerberos (`gssencmode`, GSSAPI authentication) and LDAP lookups of connection
# parameters are not available to `DATABASE_URL` (docs/deploy.md, "Postgres's client library").
#
#   source scripts/lib/libpq.sh
#   use_static_libpq DIR   # builds it in DIR (once) and puts it first in PKG_CONFIG_PATH
#
# `swift build` then links it (Package.swift's CLibPQ finds libpq by pkg-config). When the
# source cannot be fetched or built (no network, a suite without source packages), it says why
# on standard error, leaves PKG_CONFIG_PATH alone and returns 1: the caller builds with the
# system's libpq, which works the same but for the memory.

use_static_libpq() {
  local pkgconfig
  pkgconfig=$(static_libpq "$1") || return 1
  export PKG_CONFIG_PATH=$pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
}

# This file, for the shell that builds (static_libpq).
_libpq_script=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")

# Prints the pkg-config folder of the library in $1, built there first when it is not (about
# 30 s: the source of the system's PostgreSQL major version, e.g. postgresql-15 on Debian 12).
static_libpq() {
  local dir major package codename log
  dir=$(mkdir -p "$1" && cd "$1" && pwd)
  major=$(pkg-config --modversion libpq 2>/dev/null | cut -d. -f1)
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  [ -n "$major" ] && [ -n "$codename" ] || { echo "libpq: no system libpq or Debian release found" >&2; return 1; }
  package=postgresql-$major
  if [ -f "$dir/lib/libpqclient.a" ] && [ -f "$dir/pkgconfig/libpq.pc" ] && [ "$(cat "$dir/source" 2>/dev/null)" = "$package" ]; then
    echo "$dir/pkgconfig"
    return 0
  fi
  local tool
  for tool in apt-get make gcc ar bzip2; do
    command -v "$tool" >/dev/null || { echo "libpq: $tool is missing (needed to build libpq)" >&2; return 1; }
  done
  log=$dir/build.log
  : >"$log"
  # A shell of its own, so that `set -e` holds in it whatever the caller's context.
  if ! bash -c 'set -euo pipefail; source "$1"; _libpq_fetch "$2" "$3" "$4"; _libpq_build "$2"' \
    libpq "$_libpq_script" "$dir" "$package" "$codename" >>"$log" 2>&1; then
    echo "libpq: could not build $package's libpq (last lines of $log):" >&2
    tail -n 5 "$log" >&2
    return 1
  fi
  echo "$package" >"$dir/source"
  echo "$dir/pkgconfig"
}

# The source package's upstream tarball into $1/src, checked by apt against the suite's signed
# index. apt's own lists are left alone: a private list of the deb-src lines of this release and
# its security suite, in $1/apt. The newest version whose files the mirror has is taken.
_libpq_fetch() {
  local dir=$1 package=$2 codename=$3 version
  local apt=$dir/apt
  rm -rf "$apt" "$dir/src"
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$dir/src"
  cat >"$apt/sources.list" <<EOF
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $codename main
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security $codename-security main
EOF
  local options=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o APT::Sandbox::User=root)
  apt-get "${options[@]}" update -qq
  for version in $(apt-cache "${options[@]}" showsrc "$package" | awk '/^Version:/ {print $2}' | sort -rV); do
    if (cd "$dir/src" && apt-get "${options[@]}" source --download-only -qq "$package=$version"); then
      tar -xjf "$dir/src/${package}_${version%%-*}.orig.tar.bz2" -C "$dir/src"
      return 0
    fi
    rm -f "$dir/src/"*
  done
  echo "no version of $package could be downloaded"
  return 1
}

# configure (client only: no readline, zlib, ICU, GSSAPI or LDAP; OpenSSL for TLS), then the
# library and the two support libraries it needs, merged into $1/lib/libpqclient.a (a name of its
# own: a linker that meets the system's folder first would take its libpq for `-lpq`); its
# headers and a pkg-config file beside it.
_libpq_build() {
  local dir=$1 source
  source=$(find "$dir/src" -maxdepth 1 -type d -name 'postgresql-*' | head -1)
  (cd "$source" && ./configure --without-readline --without-zlib --without-icu --without-gssapi --without-ldap --with-ssl=openssl)
  make -s -C "$source/src/backend" generated-headers
  make -s -j"$(nproc)" -C "$source/src/common"
  make -s -j"$(nproc)" -C "$source/src/port"
  make -s -j"$(nproc)" -C "$source/src/interfaces/libpq"
  rm -rf "$dir/lib" "$dir/include" "$dir/pkgconfig"
  mkdir -p "$dir/lib" "$dir/include" "$dir/pkgconfig"
  printf 'create %s\naddlib %s\naddlib %s\naddlib %s\nsave\nend\n' "$dir/lib/libpqclient.a" \
    "$source/src/interfaces/libpq/libpq.a" "$source/src/common/libpgcommon_shlib.a" "$source/src/port/libpgport_shlib.a" | ar -M
  cp "$source/src/interfaces/libpq/libpq-fe.h" "$source/src/interfaces/libpq/libpq-events.h" \
    "$source/src/include/postgres_ext.h" "$source/src/include/pg_config_ext.h" "$dir/include/"
  local version
  version=$(sed -n 's/^#define PG_VERSION "\(.*\)"/\1/p' "$source/src/include/pg_config.h")
  cat >"$dir/pkgconfig/libpq.pc" <<EOF
Name: libpq
Description: PostgreSQL's client library $version, static, without GSSAPI and LDAP (scripts/lib/libpq.sh)
Version: $version
Libs: -L$dir/lib -lpqclient -lssl -lcrypto
Cflags: -I$dir/include
EOF
  rm -rf "$dir/src" "$dir/apt"
}
