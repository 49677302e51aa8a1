/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latencyd: the index of its layers, each a folder and a static library that links only
 * the layers below it (daemon/CMakeLists.txt), so that a call against the layering does
 * not link:
 *
 *   base/      log, threads and their clock, file trees, JSON results
 *   conf/      the settings table, values, the file and saved settings, their rendering,
 *              the kernel events session.events may name
 *   kernel/    modules, the module's ABI, the trackers' sysfs files, cgroups: every
 *              privileged step
 *   catalog/   what a snapshot is (entry.h, its one codec), the snapshots taken, retention
 *   recorder/  the LTTng session, the realtime waiter, the rate limits, snapshot readers
 *   fleet/     the MQTT client of the fleet: peers' alerts in, this host's out
 *   control/   the control socket: clients, peers, framing, dispatch of a command table
 *   manager/   owns all of the above; turns the recorder's events into catalog entries
 *   commands/  one control command per file, and the command table
 *
 * main.c, the tests and tools include this header to see every layer.
 */
#ifndef LATENCYD_H
#define LATENCYD_H

#include "log.h"
#include "fsutil.h"
#include "result.h"
#include "thread.h"
#include "conf.h"
#include "kernel.h"
#include "catalog.h"
#include "recorder.h"
#include "control.h"
#include "fleet_client.h"
#include "manager.h"
#include "commands.h"

#endif /* LATENCYD_H */
