// libpulse's asynchronous API with its threaded main loop (Debian: libpulse-dev), for
// ScratchSound's PulseAudio output. PipeWire desktops serve the same protocol.
#ifndef SCRATCHCARD_CPULSE_SHIM_H
#define SCRATCHCARD_CPULSE_SHIM_H
#include <pulse/pulseaudio.h>
#endif
