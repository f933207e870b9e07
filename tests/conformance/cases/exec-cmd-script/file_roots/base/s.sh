#!/bin/sh
echo "n=$# 1=$1 2=$2 cwd=$(pwd) E=$E"
echo err >&2
exit 3
