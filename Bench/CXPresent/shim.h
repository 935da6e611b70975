// The Present extension (libXpresent) with MIT-SHM pixmaps, for presentbench only: the
// measurement of vblank-timed presents against plain paced puts (BENCHMARKS.md). The
// program itself does not link it.
#ifndef SCRATCHCARD_CXPRESENT_SHIM_H
#define SCRATCHCARD_CXPRESENT_SHIM_H

#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XShm.h>
#include <X11/extensions/Xfixes.h>
#include <X11/extensions/Xpresent.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const sigset_t *sigmask);

static inline int cxp_connection_number(Display *d) { return ConnectionNumber(d); }
static inline Window cxp_root_window(Display *d) { return DefaultRootWindow(d); }
static inline Visual *cxp_default_visual(Display *d) { return DefaultVisual(d, DefaultScreen(d)); }
static inline int cxp_default_depth(Display *d) { return DefaultDepth(d, DefaultScreen(d)); }

// A 0600 segment, attached and at once marked for removal (docs/ARCHITECTURE.md's rule).
static inline void *cxp_shm_private(size_t size, int *id) {
    *id = shmget(IPC_PRIVATE, size, IPC_CREAT | 0600);
    if (*id < 0) return NULL;
    void *address = shmat(*id, NULL, 0);
    shmctl(*id, IPC_RMID, NULL);
    return address == (void *)-1 ? NULL : address;
}

// Waits on one descriptor for up to `nanoseconds`.
static inline int cxp_wait(int fd, long long nanoseconds) {
    struct pollfd p = { fd, POLLIN, 0 };
    if (nanoseconds < 0) nanoseconds = 0;
    struct timespec wait = { (time_t)(nanoseconds / 1000000000LL), (long)(nanoseconds % 1000000000LL) };
    return ppoll(&p, 1, &wait, NULL);
}

// The Present event in a generic event's cookie, once XGetEventData has filled it.
static inline int cxp_cookie_evtype(XEvent *e) { return e->xcookie.evtype; }
static inline int cxp_cookie_extension(XEvent *e) { return e->xcookie.extension; }
static inline XPresentCompleteNotifyEvent *cxp_complete(XEvent *e) { return (XPresentCompleteNotifyEvent *)e->xcookie.data; }
#endif
