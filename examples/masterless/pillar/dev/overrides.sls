# Keys only the dev environment sets: Salt merges environments in an order
# that changes from run to run, so overlapping keys would not be stable there.
dev_tools:
  debugger: gdb
  profiler: perf
