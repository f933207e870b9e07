z_auto:
  test.nop
a_auto:
  test.nop
big:
  test.nop:
    - order: 20000
small:
  test.nop:
    - order: 3
huge_after:
  test.nop:
    - order: 20050
late:
  test.nop:
    - order: last
early:
  test.nop:
    - order: first
early2:
  test.nop:
    - order: first
neg:
  test.nop:
    - order: -1
negbig:
  test.nop:
    - order: -5
flt:
  test.nop:
    - order: 2.5
txt:
  test.nop:
    - order: soon
nul:
  test.nop:
    - order: null
tie_b:
  test.nop:
    - order: 7
tie_a:
  test.nop:
    - order: 7
tie_c:
  test.succeed_with_changes:
    - order: 7
