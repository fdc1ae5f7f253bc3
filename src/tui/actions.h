/*
 * actions.h - every user action of the TUI, with its default keys and help.
 *
 * This X-macro is the only place where actions are listed: the key bindings
 * (keymap.c), the help view and the man page's key table are generated from
 * it, so they cannot drift. Keys are written in the script syntax ("j",
 * "<Down>", "<C-c>", "<Lt>" for '<'), separated by spaces; the first key is
 * the one hints show.
 *
 * _(ENUM, "name", "keys", "help line")
 */
#ifndef OPSCOPE_TUI_ACTIONS_H
#define OPSCOPE_TUI_ACTIONS_H

#define OSC_ACTION_LIST(_)                                                                   \
	_(MOVE_DOWN, "move-down", "j <Down>", "Move to the next row")                        \
	_(MOVE_UP, "move-up", "k <Up>", "Move to the previous row")                          \
	_(PAGE_DOWN, "page-down", "<PgDn> <C-f>", "Move one page down")                      \
	_(PAGE_UP, "page-up", "<PgUp> <C-b>", "Move one page up")                            \
	_(MOVE_FIRST, "move-first", "g <Home>", "Move to the first row")                     \
	_(MOVE_LAST, "move-last", "G <End>", "Move to the last row")                         \
	_(ENTER, "enter", "<Enter> <Right>",                                                 \
	  "Open the row: its instances, or its detail")              \
	_(KERNELS, "kernels", "K", "Open the kernels launched by the row's ops")              \
	_(BACK, "back", "q <Left> <Backspace>",                                               \
	  "Go back (to the previous level too); quit from the first view")                   \
	_(ESCAPE, "escape", "<Esc>", "Go back (never quits)")                                \
	_(QUIT, "quit", "Q <C-c>", "Quit at once; cancel a load")              \
	_(SCROLL_LEFT, "scroll-left", "h",                                                   \
	  "Scroll the name column left; timeline: the cursor a cell earlier")                \
	_(SCROLL_RIGHT, "scroll-right", "l",                                                 \
	  "Scroll the name column right; timeline: the cursor a cell later")                 \
	_(PAGE_LEFT, "page-left", "H", "Timeline: a page earlier (L: a page later)")         \
	_(ZOOM_IN, "zoom-in", "+", "Timeline: zoom in around the cursor")                    \
	_(ZOOM_OUT, "zoom-out", "-", "Timeline: zoom out around the cursor")                 \
	_(COLUMNS_LEFT, "columns-left", "<Lt>", "Show columns hidden on the left")       \
	_(COLUMNS_RIGHT, "columns-right", ">", "Show columns hidden on the right")       \
	_(FULL_NAME, "full-name", "i", "Show the full name of the row")             \
	_(TOGGLE_DETAIL, "toggle-detail", "d", "Show or hide the detail pane")    \
	_(PANE_DOWN, "pane-down", "} <C-d>", "Scroll the detail pane down")                  \
	_(PANE_UP, "pane-up", "{ <C-u>", "Scroll the detail pane up")                        \
	_(NEXT_LEVEL, "next-level", "<Tab>",                                                 \
	  "Next level: op, shape, kernel, dims, mapping, run, path, category, module; "       \
	  "G: next table")                                                                   \
	_(PREV_LEVEL, "prev-level", "<BackTab>", "Previous aggregation level (G: table)")     \
	_(LEVEL_OP, "level-op", "1", "Aggregate by op")                                      \
	_(LEVEL_SHAPE, "level-shape", "2", "Aggregate by op and input shapes")               \
	_(LEVEL_KERNEL, "level-kernel", "3", "Aggregate by kernel")                          \
	_(LEVEL_DIMS, "level-dims", "4", "Aggregate by kernel, block and grid")              \
	_(LEVEL_MAPPING, "level-mapping", "5", "Aggregate by op -> kernel mapping")          \
	_(LEVEL_RUN, "level-run", "6", "One row per run")                                    \
	_(LEVEL_PATH, "level-path", "7", "Aggregate by call path (merged call tree)")        \
	_(LEVEL_CATEGORY, "level-category", "8", "Aggregate by op category (GEMM, conv, ...)") \
	_(LEVEL_MODULE, "level-module", "9", "Aggregate by nn.Module path (module view)")   \
	_(NAME_STYLE, "name-style", "m", "Kernel names: demangled, short, mangled")          \
	_(VIEW_RUNS, "view-runs", "R", "Open the runs view to pick runs")                    \
	_(VIEW_GPU, "view-gpu", "G",                                                          \
	  "GPU view: busy, idle and why, per run, device and stream")                       \
	_(TIMELINE, "timeline", "V",                                                         \
	  "Timeline of the selected runs: lanes per thread and stream, the row marked")     \
	_(TOGGLE_RUN, "toggle-run", "<Space>",                                               \
	  "Runs view: select or unselect a run; ranks view: mark a rank (b, 1-9)")   \
	_(COMPARE_RANKS, "compare-ranks", "b",                                               \
	  "Ranks view: compare this rank with the lowest marked one (base)")            \
	_(SELECT_RANGE, "select-range", "v",                                                 \
	  "Runs view: select from the last toggled run")                \
	_(SELECT_ALL, "select-all", "a", "Runs view: select every run")                      \
	_(TOGGLE_WARMUP, "toggle-warmup", "w", "Skip or keep the warm-up run (run 0)")            \
	_(SORT_NEXT, "sort-next", "s", "Sort by the next column")                            \
	_(SORT_PREV, "sort-prev", "S", "Sort by the previous column")                        \
	_(SORT_REVERSE, "sort-reverse", "r", "Reverse the sort order")                       \
	_(TOP_N, "top-n", "t", "Show the first N rows only (0: all)")                        \
	_(FILTER, "filter", "/",                                                             \
	  "Filter: Conv* wildcard, re:REGEX, empty clears")              \
	_(FIND, "find", "f", "Find a name containing a text (no filter)")         \
	_(FIND_NEXT, "find-next", "n", "Find the next match")                                \
	_(FIND_PREV, "find-prev", "N", "Find the previous match")                            \
	_(EXPORT, "export", "x", "Export the view as shown: CSV, or .tsv .json .md by name") \
	_(MESSAGE, "message", "y",                                                           \
	  "The last message whole and the view's command line, to copy")                    \
	_(COMMAND, "command", ":",                                                           \
	  "Command: runs, filter, find, sort, top, export, compare, speedups")  \
	_(TREE, "tree", "T",                                                                 \
	  "Call tree: of the selected op, or at a kernel's launching op; module tree")     \
	_(FOLD_CHILDREN, "fold-children", "c", "Tree: fold the children of the node; timeline: fold the process")        \
	_(UNFOLD_CHILDREN, "unfold-children", "e", "Tree: unfold the children of the node; timeline: unfold it")  \
	_(FOLD_ALL, "fold-all", "C", "Tree: fold the node's whole subtree; timeline: every process")                  \
	_(UNFOLD_ALL, "unfold-all", "E", "Tree: unfold the node's whole subtree; timeline: every process")            \
	_(PARENT, "parent", "u", "Tree: go to the parent node")                              \
	_(NEXT_SIBLING, "next-sibling", "]", "Tree: go to the next sibling; timeline: the next event on the lane")                 \
	_(PREV_SIBLING, "prev-sibling", "[", "Tree: go to the previous sibling; timeline: the previous event")             \
	_(LONGEST_CHILD, "longest-child", "L", "Tree: go to the child with the most time; timeline: a page later")   \
	_(COMPARE_MATCH, "compare-match", "M",                                               \
	  "Compare: pair rows by name, shape or occurrence")                                 \
	_(CHANGED_ONLY, "changed-only", "o", "Compare: show only the rows that changed")     \
	_(OTHER_RUNS, "other-runs", "O", "Compare: pick the other trace's runs")            \
	_(COMPARE_LAYOUT, "compare-layout", "|",                                             \
	  "Compare: merged or split lines; a job's level: spread or each rank's rows")                            \
	_(BARS, "bars", "B", "Show or hide the bar chart of time per row")                   \
	_(WHATIF, "whatif", "W", "What-if view: projected time with faster ops")             \
	_(HISTOGRAM, "histogram", "D",                                                       \
	  "Histogram of the row's instance durations: bins, their edges and counts")        \
	_(MATRIX, "matrix", "P",                                                             \
	  "Per-run matrix of the level's top rows: the slow run and its op")               \
	_(SET_FACTOR, "set-factor", "=", "What-if: set the speedup factor of the row")      \
	_(WARNINGS, "warnings", "!",                                                         \
	  "Load warnings (truncated input, unmatched B/E), events outside every run and "   \
	  "device work no op launched")                                                     \
	_(HELP, "help", "? <F1>", "Show this help")                                          \
	_(REFRESH, "refresh", "<C-l>", "Redraw the screen")

enum osc_action {
	OSC_ACT_NONE,
#define OSC_ACTION_ENUM(id, name, keys, help) OSC_ACT_##id,
	OSC_ACTION_LIST(OSC_ACTION_ENUM)
#undef OSC_ACTION_ENUM
	OSC_ACT_NR
};

/*
 * What a handler asks of the main loop (htop's Htop_Reaction): handlers only
 * change state; the loop rebuilds and draws.
 */
enum osc_reaction {
	OSC_R_NONE = 0,
	OSC_R_REDRAW = 1 << 0,    /* state shown on screen changed */
	OSC_R_REBUILD = 1 << 1,   /* runs or filter changed: rebuild every view's rows */
	OSC_R_QUIT = 1 << 2,      /* leave the TUI */
	OSC_R_UNHANDLED = 1 << 3, /* the view does not know this action */
};

#endif
