// Linux system calls that glibc 2.36 has no wrapper for, as plain functions Swift can
// call (syscall() is variadic). No library to link: libc's syscall() only.
#ifndef CLINUX_SHIM_H
#define CLINUX_SHIM_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/// The kernel's `struct sched_attr` (include/uapi/linux/sched/types.h, the size of
/// SCHED_ATTR_SIZE_VER1), spelled here: that header clashes with glibc's <sched.h>.
struct clinux_sched_attr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime;
    uint64_t sched_deadline;
    uint64_t sched_period;
    uint32_t sched_util_min;
    uint32_t sched_util_max;
};
enum { clinux_sched_other = 0, clinux_sched_batch = 3 };

/// Asks the scheduler for time slices of `nanoseconds` for the calling thread
/// (`sched_getattr`, then `sched_setattr` with `sched_runtime` set; policy and
/// nice as they were; threads it starts later get the default slice, as
/// SCHED_FLAG_RESET_ON_FORK has it). Under EEVDF (Linux 6.6+; the slice suggestion since 6.12) a
/// shorter slice gives the thread an earlier virtual deadline, so that when it wakes it
/// preempts CPU-bound threads with the default slice instead of waiting for their slice
/// to end: for a thread that sleeps most of the time and runs briefly on time. The
/// kernel clamps it to 0.1-100 ms; no privilege is needed (it does not change the share
/// of CPU, only when it is given). Only SCHED_OTHER and SCHED_BATCH threads are touched.
/// Returns 0, or an errno (ENOSYS on kernels without the calls, EINVAL on those that
/// take no slice for fair threads, EPERM when a seccomp filter forbids it).
static inline int clinux_request_time_slice(unsigned long long nanoseconds) {
    struct clinux_sched_attr attr;
    memset(&attr, 0, sizeof attr);
    if (syscall(SYS_sched_getattr, 0, &attr, (unsigned int)sizeof attr, 0U) != 0) return errno;
    if (attr.sched_policy != clinux_sched_other && attr.sched_policy != clinux_sched_batch) return EPERM;
    attr.size = sizeof attr;
    attr.sched_flags = 1;   // SCHED_FLAG_RESET_ON_FORK: threads started later keep the default
    attr.sched_runtime = nanoseconds;
    if (syscall(SYS_sched_setattr, 0, &attr, 0U) != 0) return errno;
    return 0;
}

/// The calling thread's time slice as the scheduler has it (`sched_getattr`'s
/// `sched_runtime`, in ns; 0 when it reports none), or -1 on error.
static inline long long clinux_time_slice(void) {
    struct clinux_sched_attr attr;
    memset(&attr, 0, sizeof attr);
    if (syscall(SYS_sched_getattr, 0, &attr, (unsigned int)sizeof attr, 0U) != 0) return -1;
    return (long long)attr.sched_runtime;
}

/// Sets the calling thread's timer slack (`prctl(PR_SET_TIMERSLACK)`): how much later
/// than asked the kernel may end its timed waits, to batch wake-ups (50 us by default).
/// Returns 0, or an errno.
static inline int clinux_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0UL, 0UL, 0UL) == 0 ? 0 : errno;
}

#endif
