import CHiredis
import CLibSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `rediss://` connection's TLS session over the socket hiredis connected.
///
/// hiredis 0.14 reads and writes its socket itself and knows no TLS, so a TLS connection uses
/// hiredis only to connect, to format commands and to parse replies (its reader), and moves the
/// bytes through OpenSSL here. The socket is non-blocking and every wait is a `poll` bounded by
/// a deadline: a timeout is exact, and a record that carries no data (a TLS 1.3 session ticket)
/// never leaves a read blocked. Used by one thread at a time, like its connection.
final class RedisTLSStream {
    private let ssl: OpaquePointer
    private let socket: Int32
    private var buffer = [UInt8](repeating: 0, count: 16 * 1024)

    /// Runs the handshake within `timeout`, checking the server's certificate against the
    /// context's authorities and `host` (a name or an IP address).
    init(socket: Int32, context: RedisTLSContext, host: String, timeout: Duration) throws(RedisError) {
        guard let ssl = SSL_new(context.context) else {
            throw .connectionFailed("cannot start TLS: \(RedisTLSContext.lastError())")
        }
        self.ssl = ssl
        self.socket = socket
        let flags = fcntl(socket, F_GETFL)
        guard flags >= 0, fcntl(socket, F_SETFL, flags | O_NONBLOCK) == 0, SSL_set_fd(ssl, socket) == 1 else {
            throw .connectionFailed("cannot start TLS on the socket")
        }
        let checksHost: Bool
        if Self.isIPAddress(host) {
            checksHost = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1
        } else {
            checksHost = SSL_set1_host(ssl, host) == 1 && latchkey_ssl_set_server_name(ssl, host) == 1
        }
        guard checksHost else { throw .connectionFailed("cannot check the server's certificate for \(host)") }
        let deadline = ContinuousClock.now + timeout
        while true {
            ERR_clear_error()
            let result = SSL_connect(ssl)
            if result == 1 { break }
            let code = SSL_get_error(ssl, result)
            guard code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE else {
                let verify = SSL_get_verify_result(ssl)
                let reason = verify == X509_V_OK
                    ? RedisTLSContext.lastError()
                    : String(cString: X509_verify_cert_error_string(Int(verify)))
                throw .connectionFailed("TLS handshake with \(host) failed: \(reason)")
            }
            guard try wait(for: code, until: deadline) else {
                throw .connectionFailed("TLS handshake with \(host) timed out")
            }
        }
    }

    deinit {
        // A close_notify when the socket takes it at once; hiredis closes the socket after.
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        SSL_free(ssl)
    }

    /// Writes every byte by `deadline`, or throws `.timeout` / `.connectionLost`.
    func write(_ bytes: UnsafeRawBufferPointer, until deadline: ContinuousClock.Instant) throws(RedisError) {
        var offset = 0
        while offset < bytes.count {
            ERR_clear_error()
            let written = SSL_write(ssl, bytes.baseAddress! + offset, Int32(clamping: bytes.count - offset))
            if written > 0 {
                offset += Int(written)
                continue
            }
            let code = SSL_get_error(ssl, written)
            guard code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE else { throw .connectionLost }
            guard try wait(for: code, until: deadline) else { throw .timeout }
        }
    }

    /// Reads what arrives by `deadline` into hiredis's `reader`: true when bytes were fed,
    /// false when the deadline passed (or `wake`, -1 for none, became readable) without any.
    /// A closed or failed session throws.
    func feed(
        _ reader: UnsafeMutablePointer<redisReader>, until deadline: ContinuousClock.Instant, wakingOn wake: Int32 = -1
    ) throws(RedisError) -> Bool {
        while true {
            ERR_clear_error()
            let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                let fed = buffer.withUnsafeBytes { raw in
                    redisReaderFeed(reader, raw.baseAddress!.assumingMemoryBound(to: CChar.self), Int(count))
                }
                guard fed == REDIS_OK else { throw .protocolError("cannot buffer the reply") }
                return true
            }
            let code = SSL_get_error(ssl, count)
            guard code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE else { throw .connectionLost }
            guard try wait(for: code, until: deadline, wakingOn: wake) else { return false }
        }
    }

    /// True when an idle session has something to read: the server closed it or sent data
    /// nobody asked for. A record without data (a session ticket) is taken and ignored.
    var hasPendingInput: Bool {
        if SSL_pending(ssl) > 0 { return true }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) != 0 else { return false }
        ERR_clear_error()
        var byte: UInt8 = 0
        let count = SSL_read(ssl, &byte, 1)
        return count > 0 || SSL_get_error(ssl, count) != SSL_ERROR_WANT_READ
    }

    /// Waits until the socket is ready for what OpenSSL asked (`code`), or `deadline`, or `wake`
    /// (-1 for none) is readable: false when the deadline or the wake-up came first.
    private func wait(for code: Int32, until deadline: ContinuousClock.Instant, wakingOn wake: Int32 = -1) throws(RedisError) -> Bool {
        let events = code == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var descriptors = [pollfd(fd: socket, events: Int16(events), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&descriptors, 2, milliseconds)
            if ready > 0 { return descriptors[0].revents != 0 }
            if ready < 0 && errno != EINTR { throw .connectionLost }
        }
    }

    private static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
