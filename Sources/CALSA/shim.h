// ALSA's PCM API (Debian: libasound2-dev), for ScratchSound's output on a bare kiosk
// session with no sound server.
#ifndef SCRATCHCARD_CALSA_SHIM_H
#define SCRATCHCARD_CALSA_SHIM_H
#include <alsa/asoundlib.h>
#endif
