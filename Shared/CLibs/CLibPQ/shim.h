#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H
#include <libpq-fe.h>
// The Postgres client waits for the replies on libpq's sockets with epoll (PostgresReplyLoop).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif
