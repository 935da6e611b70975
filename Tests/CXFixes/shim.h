// Test-only C edge: Xlib and XFixes for the test support's own connections: the cursor
// image the server shows, the window manager's readiness probe.
#ifndef SCRATCHCARD_CXFIXES_SHIM_H
#define SCRATCHCARD_CXFIXES_SHIM_H
#include <X11/Xlib.h>
#include <X11/extensions/Xfixes.h>
#endif
