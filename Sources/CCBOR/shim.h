#ifndef SWIFT_MCUMGR_CCBOR_SHIM_H
#define SWIFT_MCUMGR_CCBOR_SHIM_H
#include <cbor.h>
#endif
