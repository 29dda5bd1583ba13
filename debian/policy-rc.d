#!/bin/sh
# /usr/lib/capinit/policy-rc.d, installed by the capinit package as the
# policy-rc.d alternative (update-alternatives; an administrator's own
# /usr/sbin/policy-rc.d, a file, is left alone).  invoke-rc.d(8) asks it
# before a package's maintainer script starts, stops or restarts a daemon.
# While capinit is PID 1 the answer is no (101, "action forbidden"): capinit
# runs what /etc/capinit/services declares, with the privilege declared
# there, and a daemon an "apt-get install" started behind its back would
# run as root with every capability, unsupervised.  Under any other init
# every action is allowed (0).
[ "$(cat /proc/1/comm 2>/dev/null)" = capinit ] || exit 0
exit 101
