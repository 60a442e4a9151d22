// epoll(7) for RTPOut's shared sender loop (RTPSenderIOLoop): Swift's Glibc module does not export it, and its
// `struct epoll_event` is packed, so the loop sees this plain (token, events) pair instead.
#ifndef CUDPEPOLL_H
#define CUDPEPOLL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Readiness bits, as in `cudp_epoll_ready.events` and `cudp_epoll_add`.
#define CUDP_EPOLL_IN 0x1u
#define CUDP_EPOLL_OUT 0x4u

/// One ready descriptor: the token it was added with and what it is ready for (errors and hang-ups read as IN).
typedef struct cudp_epoll_ready {
    uint64_t token;
    uint32_t events;
} cudp_epoll_ready;

/// A close-on-exec epoll instance; -1 with errno on failure.
int cudp_epoll_create(void);

/// Watches `fd` for `events` (level-triggered), reporting it with `token`. 0, or -1 with errno.
int cudp_epoll_add(int epoll_fd, int fd, uint32_t events, uint64_t token);

/// Changes what `fd` (already watched) is watched for. 0, or -1 with errno.
int cudp_epoll_modify(int epoll_fd, int fd, uint32_t events, uint64_t token);

/// Stops watching `fd`. 0, or -1 with errno.
int cudp_epoll_remove(int epoll_fd, int fd);

/// Waits up to `timeout_ms` (EINTR reads as nothing ready); returns how many entries of `ready` were filled.
int cudp_epoll_wait(int epoll_fd, cudp_epoll_ready *ready, int capacity, int timeout_ms);

#ifdef __cplusplus
}
#endif

#endif
