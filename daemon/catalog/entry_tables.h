/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * entry_codec.c's tables of an entry's history and analysis, for a record that carries
 * them spelled as catalog.json spells them (latencyd-reader's result, reader/result.h).
 */
#ifndef LATENCYD_ENTRY_TABLES_H
#define LATENCYD_ENTRY_TABLES_H

#include "codec.h"

/* struct catalog_history, struct catalog_analysis (entry.h). */
extern const struct codec_table catalog_history_table;
extern const struct codec_table catalog_analysis_table;

#endif /* LATENCYD_ENTRY_TABLES_H */
