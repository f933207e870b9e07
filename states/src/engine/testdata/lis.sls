src:
  test.succeed_with_changes
quiet:
  test.succeed_without_changes
listener:
  test.succeed_without_changes:
    - listen:
      - test: src
      - test: quiet
listener2:
  test.succeed_with_changes:
    - listen:
      - src
listen_missing:
  test.nop:
    - listen:
      - test: nothere
l_in:
  test.nop:
    - listen_in:
      - test: listener3
listener3:
  test.nop
l_in2:
  test.succeed_with_changes:
    - listen_in:
      - test: listener3
