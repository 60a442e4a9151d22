#include "CUDPEpoll.h"

#include <stddef.h>
#include <sys/epoll.h>

_Static_assert(CUDP_EPOLL_IN == EPOLLIN && CUDP_EPOLL_OUT == EPOLLOUT, "CUDP_EPOLL_* mirror EPOLL*");

int cudp_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int cudp_epoll_add(int epoll_fd, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event = {.events = events, .data = {.u64 = token}};
    return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event);
}

int cudp_epoll_modify(int epoll_fd, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event = {.events = events, .data = {.u64 = token}};
    return epoll_ctl(epoll_fd, EPOLL_CTL_MOD, fd, &event);
}

int cudp_epoll_remove(int epoll_fd, int fd) { return epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, NULL); }

#define CUDP_EPOLL_BATCH 64

int cudp_epoll_wait(int epoll_fd, cudp_epoll_ready *ready, int capacity, int timeout_ms) {
    struct epoll_event events[CUDP_EPOLL_BATCH];
    if (capacity > CUDP_EPOLL_BATCH) capacity = CUDP_EPOLL_BATCH;
    int count = epoll_wait(epoll_fd, events, capacity, timeout_ms);
    if (count < 0) return 0;  // EINTR (or a bad descriptor, which the next call reports the same way)
    for (int i = 0; i < count; i++) {
        ready[i].token = events[i].data.u64;
        uint32_t bits = events[i].events;
        ready[i].events = (bits & EPOLLOUT) | ((bits & (EPOLLIN | EPOLLERR | EPOLLHUP)) ? EPOLLIN : 0);
    }
    return count;
}
