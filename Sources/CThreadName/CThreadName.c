#define _GNU_SOURCE
#include <pthread.h>
#include "CThreadName.h"

int cthread_set_name(const char *name) { return pthread_setname_np(pthread_self(), name); }
