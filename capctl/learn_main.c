/* capctl/learn_main.c -- the program capctl-learn, which capctl executes
 * for `capctl learn` (capctl.c), as it does capctl-import: an
 * administrator's tool, kept out of the small capctl.  Its messages are
 * capctl's. */
#include "../conf/xalloc.h"
#include "learn.h"

char const *PROG = "capctl";

int main(int argc, char **argv)
{
  xalloc_name(PROG);
  return learn_main(argc, argv);
}
