// The C edge of the X11 room: Xlib, its utilities, MIT-SHM and System V shared memory.
// Macros and variadic calls that Swift cannot import get `static inline` wrappers here,
// all named cx11_….
#ifndef SCRATCHCARD_CX11_SHIM_H
#define SCRATCHCARD_CX11_SHIM_H

#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/Xresource.h>
#include <X11/keysym.h>
#include <X11/extensions/XShm.h>
#include <sys/ipc.h>
#include <sys/shm.h>

#endif
