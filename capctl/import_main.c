/* capctl/import_main.c -- the program capctl-import: `capctl import`,
 * which capctl executes with the same arguments (capctl.c), apart from
 * capctl itself: an administrator's tool for leaving systemd, on a full
 * machine, kept out of the small program that controls capinit on
 * appliances and in containers.  Its messages are capctl's, as the verb's
 * are (capctl(8), IMPORT). */
#include "../conf/xalloc.h"
#include "import.h"

char const *PROG = "capctl";

int main(int argc, char **argv)
{
  xalloc_name(PROG);
  return import_main(argc, argv);
}
