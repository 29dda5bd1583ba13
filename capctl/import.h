/* capctl/import.h -- `capctl import UNIT...` (import.c): systemd units,
 * each read as systemd would run it, into capinit service files that
 * never grant more, and a report.  The program capctl-import runs it
 * (import_main.c); capctl's verb import executes that program. */
#ifndef CAPINIT_CAPCTL_IMPORT_H
#define CAPINIT_CAPCTL_IMPORT_H

/* argv[0] is the verb ("import"); the exit status: 0 every unit
 * converted, 1 one was refused, 100 wrong usage, 111 a system error */
int import_main(int argc, char **argv);

#endif
