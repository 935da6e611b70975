// The C edge of the QR room: libqrencode (Debian's libqrencode-dev). Only Sources/QRCode
// imports this module; a QRcode pointer never leaves it.
#ifndef SCRATCHCARD_CQRENCODE_SHIM_H
#define SCRATCHCARD_CQRENCODE_SHIM_H

#include <qrencode.h>

#endif
