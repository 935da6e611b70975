// The C edge of the X11 room: Xlib, its utilities, MIT-SHM and System V shared memory,
// DPMS (libXext), XInput 2 (libXi, for touch) and RandR (libXrandr, for the refresh rate).
// Macros and variadic calls that Swift cannot import get `static inline` wrappers here,
// all named cx11_….
#ifndef SCRATCHCARD_CX11_SHIM_H
#define SCRATCHCARD_CX11_SHIM_H

#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/Xresource.h>
#include <X11/Xatom.h>
#include <X11/keysym.h>
#include <X11/extensions/XShm.h>
#include <X11/extensions/dpms.h>
#include <X11/extensions/XInput2.h>
#include <X11/extensions/Xrandr.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <stddef.h>
#include <poll.h>
#include <signal.h>
#include <time.h>

// ppoll (Linux, a GNU extension of <poll.h>, so not in Swift's Glibc module): a wait
// with a timeout in nanoseconds, for the frame pacer's slots between milliseconds.
int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const sigset_t *sigmask);

// Waits on `fds` for up to `nanoseconds` (negative: forever); poll's return value.
static inline int cx11_poll_nanoseconds(struct pollfd *fds, nfds_t count, long long nanoseconds) {
    if (nanoseconds < 0) return ppoll(fds, count, NULL, NULL);
    struct timespec wait = { (time_t)(nanoseconds / 1000000000LL), (long)(nanoseconds % 1000000000LL) };
    return ppoll(fds, count, &wait, NULL);
}

// Display macros (Xlib.h).
static inline int cx11_connection_number(Display *d) { return ConnectionNumber(d); }
static inline int cx11_default_screen(Display *d) { return DefaultScreen(d); }
static inline Window cx11_root_window(Display *d) { return DefaultRootWindow(d); }
static inline Visual *cx11_default_visual(Display *d) { return DefaultVisual(d, DefaultScreen(d)); }
static inline int cx11_default_depth(Display *d) { return DefaultDepth(d, DefaultScreen(d)); }
static inline int cx11_display_width(Display *d) { return DisplayWidth(d, DefaultScreen(d)); }
static inline int cx11_display_height(Display *d) { return DisplayHeight(d, DefaultScreen(d)); }
static inline int cx11_display_width_mm(Display *d) { return DisplayWidthMM(d, DefaultScreen(d)); }
static inline int cx11_display_height_mm(Display *d) { return DisplayHeightMM(d, DefaultScreen(d)); }
static inline int cx11_image_byte_order(Display *d) { return ImageByteOrder(d); }
static inline unsigned long cx11_black_pixel(Display *d) { return BlackPixel(d, DefaultScreen(d)); }

// Visual.class is a C++ keyword in disguise (`c_class` there): read it here.
static inline int cx11_visual_class(const Visual *v) {
#if defined(__cplusplus) || defined(c_plusplus)
    return v->c_class;
#else
    return v->class;
#endif
}

// XVisualInfo.class, the same keyword trouble: set it here.
static inline void cx11_visual_info_set_class(XVisualInfo *info, int c) {
#if defined(__cplusplus) || defined(c_plusplus)
    info->c_class = c;
#else
    info->class = c;
#endif
}

// XImage macros (Xutil.h).
static inline int cx11_destroy_image(XImage *image) { return XDestroyImage(image); }
static inline unsigned long cx11_get_pixel(XImage *image, int x, int y) { return XGetPixel(image, x, y); }

// System V shared memory for MIT-SHM. The segment is private to our uid: mode 0600,
// never 0777 (docs/ARCHITECTURE.md). IPC_PRIVATE is a cast macro that Swift cannot import.
static inline int cx11_shm_create_private(size_t size) {
    return shmget(IPC_PRIVATE, size, IPC_CREAT | 0600);
}
// shmat's failure value is (void *)-1: turn it into NULL.
static inline void *cx11_shm_attach(int shmid) {
    void *address = shmat(shmid, NULL, 0);
    return address == (void *)-1 ? NULL : address;
}
// Marks the segment for removal: it goes away when the last process detaches.
static inline int cx11_shm_mark_removed(int shmid) { return shmctl(shmid, IPC_RMID, NULL); }

// XInput 2 event masks (XI2.h macros): a mask long enough for the touch events,
// with TouchBegin, TouchUpdate and TouchEnd set.
enum { cx11_xi_touch_mask_length = XIMaskLen(XI_TouchEnd) };
static inline void cx11_xi_set_touch_mask(unsigned char *mask) {
    XISetMask(mask, XI_TouchBegin);
    XISetMask(mask, XI_TouchUpdate);
    XISetMask(mask, XI_TouchEnd);
}

// Whether any input device has a touch class (XIQueryDevice): a touchscreen is there.
static inline int cx11_xi_has_touch_device(Display *display) {
    int count = 0, found = 0;
    XIDeviceInfo *devices = XIQueryDevice(display, XIAllDevices, &count);
    for (int i = 0; devices && i < count && !found; i++)
        for (int c = 0; c < devices[i].num_classes; c++)
            if (devices[i].classes[c]->type == XITouchClass) { found = 1; break; }
    if (devices) XIFreeDeviceInfo(devices);
    return found;
}

#endif
