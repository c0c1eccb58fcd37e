#ifndef SWIFT_MCUMGR_CDBUS_SHIM_H
#define SWIFT_MCUMGR_CDBUS_SHIM_H
// libdbus-1 (Debian libdbus-1-dev) for the BlueZ D-Bus transport (SMPBLE). Every byte of D-Bus is
// marshalled by libdbus; this shim only names what Swift cannot import from the header: the type
// codes and the timeouts are macros with casts.
#include <dbus/dbus.h>

static inline int cdbus_type_invalid(void) { return DBUS_TYPE_INVALID; }
static inline int cdbus_type_byte(void) { return DBUS_TYPE_BYTE; }
static inline int cdbus_type_boolean(void) { return DBUS_TYPE_BOOLEAN; }
static inline int cdbus_type_int16(void) { return DBUS_TYPE_INT16; }
static inline int cdbus_type_uint16(void) { return DBUS_TYPE_UINT16; }
static inline int cdbus_type_int32(void) { return DBUS_TYPE_INT32; }
static inline int cdbus_type_uint32(void) { return DBUS_TYPE_UINT32; }
static inline int cdbus_type_int64(void) { return DBUS_TYPE_INT64; }
static inline int cdbus_type_uint64(void) { return DBUS_TYPE_UINT64; }
static inline int cdbus_type_double(void) { return DBUS_TYPE_DOUBLE; }
static inline int cdbus_type_string(void) { return DBUS_TYPE_STRING; }
static inline int cdbus_type_object_path(void) { return DBUS_TYPE_OBJECT_PATH; }
static inline int cdbus_type_signature(void) { return DBUS_TYPE_SIGNATURE; }
static inline int cdbus_type_unix_fd(void) { return DBUS_TYPE_UNIX_FD; }
static inline int cdbus_type_array(void) { return DBUS_TYPE_ARRAY; }
static inline int cdbus_type_variant(void) { return DBUS_TYPE_VARIANT; }
static inline int cdbus_type_struct(void) { return DBUS_TYPE_STRUCT; }
static inline int cdbus_type_dict_entry(void) { return DBUS_TYPE_DICT_ENTRY; }
static inline int cdbus_message_type_method_return(void) { return DBUS_MESSAGE_TYPE_METHOD_RETURN; }
static inline int cdbus_message_type_error(void) { return DBUS_MESSAGE_TYPE_ERROR; }
static inline int cdbus_message_type_signal(void) { return DBUS_MESSAGE_TYPE_SIGNAL; }

/// Whether `error` is set (dbus_error_is_set is a function already; this keeps the Swift side uniform).
static inline int cdbus_error_is_set(const DBusError *error) { return dbus_error_is_set(error) ? 1 : 0; }
#endif
