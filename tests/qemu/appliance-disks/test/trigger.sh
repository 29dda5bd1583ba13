#!/bin/busybox sh
# /test/trigger.sh (tests/qemu/appliance-disks): what the kernel says of
# the mounts of /etc/fstab, one record a line on /dev/ttyS1, then the
# power off.
exec 3>/dev/ttyS1
# mount point, options, type, source, file system options
awk '{ for (i = 7; $i != "-"; i++) ; print "mount", $5, $6, $(i + 1), $(i + 2), $(i + 3) }' /proc/self/mountinfo >&3
awk 'NR > 1 { print "swap", $1, $5 }' /proc/swaps >&3
echo "loop $(cat /sys/block/loop0/loop/backing_file 2>/dev/null)" >&3
case " $(cat /proc/cmdline) " in
  *" capinit_test=powercut "*) echo "powercut ready" >&3 ;;
  *) echo "poweroff" >&3; capctl poweroff ;;
esac
